#!/usr/bin/env bash
# Session 38's device plan (build: main, `make gpubin`; carry [".gpubin"]). The card is printed
# first: compare numbers only within a call.
#   O  session 25's o, never run on an H200: gate_up's steps in flight against its warps per SM
#      (DeepSeek-V3, GLM-4.5, M = 1, 4; 12 warps of 3 steps, 8 of 4, against 16 of 2): does the
#      H200 want more bytes in flight per SM than the default's registers hold?
#   d  by the card: an H200 runs b O s q t r (b: v60's closing bench through gpu_s32.sh), any
#      other card s q (gpu_s37.sh's).
#   Any other letter goes to gpu_s37.sh.
set -u
dir=$(dirname "$0")
source "$dir/gpu_steps.sh"
by_card d "b O s q t r" "s q" "$@"
for letter in "${letters[@]}"; do
  case $letter in
    O) LIMIT="$(left)" bash "$dir/gpu_s25.sh" o ;;
    b) LIMIT="$(left)" bash "$dir/gpu_s32.sh" b ;;
    *) LIMIT="$(left)" bash "$dir/gpu_s37.sh" "$letter" ;;
  esac
done
echo "call done at ${SECONDS} s"
