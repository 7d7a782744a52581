#!/usr/bin/env bash
# Session 35's device plan (build: main, `make gpubin`, and v55's as .gpubin/moegemv_v55; carry
# [".gpubin"]). The card is printed first: compare numbers only within a call.
#   t  Qwen3-Next's pair with PDL at M=1, CTA timelines: v58's split M = 1 kernel against v57's
#      3-step one (gu_m1split=0), mirrored n o o2 n2. Why does the split kernel help the pair
#      (-2.1%) more than gate_up alone (-0.3%)? If gate_up's last CTA ends earlier relative to
#      its wait, or the down's wait returns earlier, the timeline shows it. Then m10
#      (gu_m1minb=10, 96 registers): 704 gate_up CTAs of 64 threads leave ~32K registers per SM
#      free, room for one down CTA (13 warps x 72 registers) beside them from the start, so
#      the down's first ring fill could run under gate_up: does its first CTA start earlier?
#   d  by the card: an H200 runs gpu_s34.sh's d (b w o r z l); any other card gpu_s34.sh's k
#      (the M=16 batches) and m (the split M = 1 kernel's neighbours), then t.
#   Any other letter goes to gpu_s34.sh.
set -u
dir=$(dirname "$0")
source "$dir/gpu_steps.sh"
by_card d "b w o r z l" "k m t" "$@"
for letter in "${letters[@]}"; do
  case $letter in
    t) step qwen_timelines 120 eval 'timeline n "" qwen3-next; timeline o gu_m1split=0 qwen3-next
         timeline o2 gu_m1split=0 qwen3-next; timeline n2 "" qwen3-next
         timeline m10 gu_m1minb=10 qwen3-next' ;;
    *) LIMIT="$(left)" bash "$dir/gpu_s34.sh" "$letter" ;;
  esac
done
echo "call done at ${SECONDS} s"
