#!/usr/bin/env bash
# Session 38's device plan (build: main, `make gpubin`; carry [".gpubin"]). The card is printed
# first: compare numbers only within a call.
#   O  session 25's o, never run on an H200: gate_up's steps in flight against its warps per SM
#      (DeepSeek-V3, GLM-4.5, M = 1, 4; 12 warps of 3 steps, 8 of 4, against 16 of 2): does the
#      H200 want more bytes in flight per SM than the default's registers hold?
#   v  v61 (the build: v60's M = 1 kernel at 5 CTAs/SM where its grid is one wave of 5) against
#      v60 (.gpubin/moegemv_v60), mirrored o n n2 o2 on Qwen3.5-35B, Qwen3-Next, Qwen3-30B at M =
#      1, 2; then its check (check_keys, and the Qwen3.5 shapes at M = 1, 3) and the [gpu] tests.
#   d  by the card: an H200 runs v b O t r (b: the build's closing bench through gpu_s32.sh),
#      any other card v b. (Calls 1-2 ran gpu_s37.sh's s and q on an H100.)
#   Any other letter goes to gpu_s37.sh.
set -u
dir=$(dirname "$0")
source "$dir/gpu_steps.sh"
by_card d "v b O t r" "v b" "$@"
for letter in "${letters[@]}"; do
  case $letter in
    v) step v61 100 abr "o@moegemv_v60: n: n2: o2@moegemv_v60:" qwen3.5-35b,qwen3-next,qwen3-30b \
         1,2 " gate_up |pair" v61.txt
       step check 70 check_keys v61 ""
       step check_q 40 eval 'MOEGEMV_SEED=61 MOEGEMV_CACHE_DIR=/tmp/cache_cq timeout 60 \
         .gpubin/moegemv check --shape 2048:512:512:8,2048:768:0:8 --m 1,3 --e 16 --replays 1 \
         > "$out/check_q_v61.log" 2>&1; echo "check_q rc=$?"
         grep -aE "^(PASS|FAIL)" "$out/check_q_v61.log" | cut -c1-100 | sort | uniq -c | head'
       step tests 60 gpu_tests v61 ;;
    O) LIMIT="$(left)" bash "$dir/gpu_s25.sh" o ;;
    b) LIMIT="$(left)" bash "$dir/gpu_s32.sh" b ;;
    *) LIMIT="$(left)" bash "$dir/gpu_s37.sh" "$letter" ;;
  esac
done
echo "call done at ${SECONDS} s"
