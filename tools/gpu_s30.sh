#!/usr/bin/env bash
# Session 30's device plan (build: main, `make gpubin`; carry [".gpubin"]). The card is printed
# first: compare numbers only within a call. Letters run in order; a step that no longer fits the
# call's LIMIT is skipped and says so.
#   x  Llama-4: 2-warp gate_up CTAs (W below; call 12: pair with PDL -0.7% at M=1) and the down's
#      scale prefetch (dc_spre=1; session 29: -1.5% there) alone and together, mirrored
#      n w s ws ws2 s2 w2 n2, M = 1, 4.
#   c  the check of both together (call 18: not the default's lines; 2 warps, another order).
#   t  Llama-4's gate_up as the persistent streaming kernel (gu_stream=1, default and 12 consumer
#      warps; last measured in session 4 on DeepSeek-V3, 1.4-1.7x the classic), mirrored
#      n t u u2 t2 n2, M=1.
#   p  ncu of Llama-4's gate_up at M=1 with per-instruction stall samples (gpu_profile.sh).
#   q  Llama-4's gate_up with both tiles split (128-byte row pieces; the shared expert's through
#      gu_shx=2, which holds at M = 1 only; gu_m1pipe=0: the M=1 kernel at 3 steps spills with it)
#      against the routed tiles alone split (b) and both split with the M=1 kernel at 3 steps and
#      12 warps (m: gu_m1minb=3, 166 registers, no spill), mirrored n a b m m2 b2 a2 n2, M=1;
#      then a's check.
#   v  v55 (main's build) against v56 (branch v56-llama-split: q's a as Llama-4's default), built
#      as .gpubin/moegemv_v56, mirrored n v v2 n2 on Llama-4 at M = 1, 4, 16; then v56's check.
#   a  x p c t (call 18 ran them on an H100); q is the next call's.
set -u
source "$(dirname "$0")/gpu_steps.sh"
card=$(card_name); echo "card: $card"
W=gu_warps=2,gu_minb=10,gu_m1minb=8
letters=("$@")
[ "${letters[*]}" = a ] && letters=(x p c t)
for letter in "${letters[@]}"; do
case $letter in
  x) S=dc_spre=1
     step llama_ws 130 abr "n: w:$W s:$S ws:$W,$S ws2:$W,$S s2:$S w2:$W n2:" \
       llama4-maverick 1,4 " gate_up | down |pair|ceiling" llama_ws.txt ;;
  c) step check_ws 35 check_keys ws "$W,dc_spre=1" ;;
  t) T=gu_stream=1 U=gu_stream=1,gu_warps=12
     step llama_stream 90 abr "n: t:$T u:$U u2:$U t2:$T n2:" \
       llama4-maverick 1 " gate_up |pair_pdl|ceiling" llama_stream.txt ;;
  q) A=gu_split=1,gu_shx=2,gu_m1pipe=0 B=gu_split=1,gu_m1pipe=0 C3=gu_split=1,gu_shx=2,gu_m1minb=3
     step llama_split 110 abr "n: a:$A b:$B m:$C3 m2:$C3 b2:$B a2:$A n2:" \
       llama4-maverick 1 " gate_up |pair|ceiling" llama_split.txt
     step check_split 30 check_keys split "$A" ;;
  v) step llama_v56 120 abr "n: v@moegemv_v56: v2@moegemv_v56: n2:" \
       llama4-maverick 1,4,16 " gate_up |pair|ceiling" llama_v56.txt
     CHECK_BIN=moegemv_v56 step check_v56 30 check_keys v56 "" ;;
  p) step ncu_src 120 env KERNELS=gate_up OUT="$out" \
       bash "$(dirname "$0")/gpu_profile.sh" llama4-maverick 1 llama ;;
  *) echo "gpu_s30.sh: no run letter $letter (a, x, c, t, p, q, v)" >&2 ;;
esac
done
echo "call done at ${SECONDS} s"
