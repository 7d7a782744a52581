#!/usr/bin/env bash
# Session 34's device plan (build: main, `make gpubin`, and v55's as .gpubin/moegemv_v55; carry
# [".gpubin"]). The card is printed first: compare numbers only within a call.
#   l  DeepSeek-V3's M=16 pair with PDL, slower than without on H100s (session 33 call 14: 1029.02
#      against 991.35 us): the grouped down's launch_dependents moved to its end (dc_launch=2),
#      mirrored n l l2 n2 at M = 16. Session 12 (run 8, an H200) measured that move -5..-6% on
#      the pair with PDL and left it off by SPEC 7's "as early as the kernel allows": is that
#      still the cause (the next gate_up's CTAs resident beside the down, waiting)?
#   d  by the card: an H200 runs gpu_s33.sh's b w o r z, then l; any other card z q l b.
#   Any other letter goes to gpu_s33.sh.
set -u
dir=$(dirname "$0")
source "$dir/gpu_steps.sh"
by_card d "b w o r z l" "z q l b" "$@"
for letter in "${letters[@]}"; do
  case $letter in
    l) step dsv3_launch 110 abr "n: l:dc_launch=2 l2:dc_launch=2 n2:" deepseek-v3 16 "pair" \
         dsv3_launch.txt ;;
    *) LIMIT="$(left)" bash "$dir/gpu_s33.sh" "$letter" ;;
  esac
done
echo "call done at ${SECONDS} s"
