#!/usr/bin/env bash
# Session 25's device plan (build: main, `make gpubin`; carry [".gpubin"]). The card is printed
# first: compare numbers only within a call. Letters run in order; a step that no longer fits the
# call's LIMIT is skipped and says so; NEED=H200 stops on any other card (gpu_steps.sh). Earlier letters:
# tools/gpu_s24.sh.
#   s  gu_spair=1 against the default, DeepSeek-V3 and GLM-4.5 (split tiles), M = 1, 2, 4.
#   d  DeepSeek-V3's dc_safter=1 against the default, M = 1, 2, 4.
#   p  GLM-4.5's dc_pipe=2 against the default, M = 1, 4.
#   c  the check with gu_spair=1,dc_safter=1 (prints the default's lines if the sums are the same).
#   v  the build against .gpubin/moegemv_v52 (o n n2 o2) at M = 1, 4 on the four presets; then
#      the build's check and [gpu] tests. (v53 + v54: gate_up rows read gu_spair, DeepSeek-V3's
#      down rows its dc_safter; the knob A/Bs s and d run on v52's binary.)
#   o  gate_up's steps in flight against its warps per SM (DeepSeek-V3, GLM-4.5, M = 1, 4): the
#      default (2 steps, 4 CTAs of 4 warps, 128 registers) against gu_pipe=3,gu_minb=3 (12 warps,
#      3 steps, 163 registers, no spill) and gu_pipe=4,gu_minb=2 (8 warps, 4 steps, 236).
#   r  gate_up's weights through the per-warp cp.async ring (gu_ring=1: the 16-row tiles, ~94
#      registers, 5 CTAs/SM) 2, 4 and 6 steps deep (ra, rb, rc) against the default, DeepSeek-V3
#      and GLM-4.5, M=1 (session 1's v4a: no change then, with the weight-load stall 27% -> 5% of samples).
#   t  gate_up's two-tile kernel (two 8-feature tiles per routed CTA, the second tile's loads under
#      the first's end) from M = 1 (gu_tmin=1) against the default (from M = 8), DeepSeek-V3 and
#      GLM-4.5 at M = 1, 2, 4; then its check (the same sums: the check prints the default's lines).
#   b  the build's closing bench (all presets and M, --seed 1): s25.json, s25.log.
set -u
source "$(dirname "$0")/gpu_steps.sh"
card=$(card_name); echo "card: $card"
for letter in "$@"; do
case $letter in
  s) step spair 110 abr "n@moegemv_v52: s@moegemv_v52:gu_spair=1 s2@moegemv_v52:gu_spair=1 n2@moegemv_v52:" deepseek-v3,glm-4.5 1,2,4 \
       " gate_up |pair|ceiling" spair.txt ;;
  d) step ds_safter 70 abr "n@moegemv_v52: c@moegemv_v52:dc_safter=1 c2@moegemv_v52:dc_safter=1 n2@moegemv_v52:" deepseek-v3 1,2,4 \
       " down |pair|ceiling" ds_safter.txt ;;
  p) step glm_pipe 45 abr "n@moegemv_v52: p@moegemv_v52:dc_pipe=2 p2@moegemv_v52:dc_pipe=2 n2@moegemv_v52:" glm-4.5 1,4 " down |pair|ceiling" glm_pipe.txt ;;
  c) step check 25 check_keys both gu_spair=1,dc_safter=1 ;;
  v) step v53 140 abr "o@moegemv_v52: n: n2: o2@moegemv_v52:" deepseek-v3,glm-4.5,llama4-maverick,qwen3-next 1,4 \
       " gate_up | down |pair|ceiling" v53.txt
     step check 25 check_keys v53 ""
     step tests 30 gpu_tests v53 ;;
  o) step depth 100 abr "n: a:gu_pipe=3,gu_minb=3 b:gu_pipe=4,gu_minb=2 b2:gu_pipe=4,gu_minb=2 \
a2:gu_pipe=3,gu_minb=3 n2:" deepseek-v3,glm-4.5 1,4 " gate_up |pair_pdl|ceiling" depth.txt ;;
  r) step ring 90 abr "n: ra:gu_ring=1 rb:gu_ring=1,gu_pipe=4 rc:gu_ring=1,gu_pipe=6 rc2:gu_ring=1,gu_pipe=6 \
rb2:gu_ring=1,gu_pipe=4 ra2:gu_ring=1 n2:" deepseek-v3,glm-4.5 1 " gate_up |pair_pdl|ceiling" ring.txt ;;
  t) step tmin 80 abr "n: t:gu_tmin=1 t2:gu_tmin=1 n2:" deepseek-v3,glm-4.5 1,2,4 " gate_up |pair_pdl|ceiling" tmin.txt
     step check 25 check_keys tmin gu_tmin=1 ;;
  b) MOEGEMV_CACHE_DIR=/tmp/cache_close step bench 60 eval 'timeout 150 .gpubin/moegemv bench --seed 1 \
       --json "$out/s25.json" > "$out/s25.log" 2>&1; echo "bench rc=$?"; grep -a "M=1 .*pair\|ceiling:" "$out/s25.log"' ;;
  *) echo "gpu_s25.sh: no run letter $letter (b, c, d, o, p, r, s, t, v)" >&2 ;;
esac
done
echo "call done at ${SECONDS} s"
