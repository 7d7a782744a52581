#!/usr/bin/env bash
# Session 37's device plan (build: main, `make gpubin`; carry [".gpubin"]). The card is printed
# first: compare numbers only within a call.
#   t  v60's placement under PDL: the timeline (gate_up's CTAs per SM) of Qwen3-Next at M=1.
#   x  one wave at M = 2..4 the way v60 got it at M=1: the general kernel on the split tile in
#      4-warp CTAs at 1 step, 6 CTAs/SM (80 registers, 16-24 bytes of stack), two 8-feature tiles
#      per routed CTA from M=2 (X: gu_split=1,gu_warps=4,gu_pipe=1,gu_minb=6,gu_tiles=2,gu_tmin=2,
#      gu_group=2: Qwen3-Next's M=2 grid ~704 CTAs against 792 slots, where the default's 1344 of
#      2 warps take 1320 slots and a tail). Its M = 1 kernel spills (624 bytes): M=1 not run.
#      Mirrored n X X2 n2 at M = 2, 3, 4 on Qwen3-Next, Qwen3.5-35B, Qwen3-30B.
#   q  Qwen3.5-35B's M = 1 grid (576 CTAs) at v60's cap of 6 CTAs/SM fills ~96 SMs under PDL, if
#      each SM that frees takes up to its cap (session 36); at 5 (gu_m1minb=5: 96 registers, no
#      stack at 1 step, 32 bytes at 2) ~115. Its timeline, then mirrored n F1 F2 F22 F12 n2 at
#      M=1 (F1 = gu_m1minb=5,gu_m1pipe=1, F2 = gu_m1minb=5,gu_m1pipe=2).
#   s  the streaming down's block scales through the cp.async ring two units ahead (dc_sahead=2,
#      the default only at I <= 512 since session 19) on DeepSeek-V3, GLM-4.5, Llama-4 at M = 1,
#      4, mirrored n S S2 n2: session 28 found the consumers' scale loads waiting in the loaded
#      memory system, and the down has changed since session 19 (v47).
#   d  by the card: an H200 runs b t r s q (b: the closing bench, through gpu_s32.sh; r:
#      gpu_s36.sh's read-only bounds), any other card s q.
#   Any other letter goes to gpu_s36.sh.
set -u
dir=$(dirname "$0")
source "$dir/gpu_steps.sh"
by_card d "b t r s q" "s q" "$@"
for letter in "${letters[@]}"; do
  case $letter in
    t) step v60_tl 40 timeline n "" qwen3-next
       grep -aE "CTAs per SM|first start" "$out/tl_all.log" | cut -c1-300 ;;
    x) x=gu_split=1,gu_warps=4,gu_pipe=1,gu_minb=6,gu_tiles=2,gu_tmin=2,gu_group=2
       step wave24 220 abr "n: X:$x X2:$x n2:" qwen3-next,qwen3.5-35b,qwen3-30b 2,3,4 \
         " gate_up |pair" wave24.txt ;;
    q) step q35_tl 40 timeline n "" qwen3.5-35b
       grep -aE "CTAs per SM|first start" "$out/tl_all.log" | tail -4 | cut -c1-300
       f1=gu_m1minb=5,gu_m1pipe=1 f2=gu_m1minb=5,gu_m1pipe=2
       step q35_minb5 90 abr "n: F1:$f1 F2:$f2 F22:$f2 F12:$f1 n2:" qwen3.5-35b 1 \
         " gate_up |pair" q35_minb5.txt ;;
    s) step sahead 200 abr "n: S:dc_sahead=2 S2:dc_sahead=2 n2:" \
         deepseek-v3,glm-4.5,llama4-maverick 1,4 " down |pair" sahead.txt ;;
    *) LIMIT="$(left)" bash "$dir/gpu_s36.sh" "$letter" ;;
  esac
done
echo "call done at ${SECONDS} s"
