#!/usr/bin/env bash
# Session 32's device plan (build: main, `make gpubin`, and v56's as .gpubin/moegemv_v56; carry
# [".gpubin"]). The card is printed first: compare numbers only within a call.
#   a  by the card. An H100 runs session 31's order (v q s: the Llama-4 decision first). An H200,
#      the first since session 25, runs what only it can answer first: session 29's B (v55's
#      closing bench under the cold-weight layer rule, never run on an H200), then session 25's o
#      (gate_up's steps in flight against its warps per SM, DeepSeek-V3 and GLM-4.5 at M = 1, 4:
#      does the H200 want more bytes in flight per SM than 16 warps of 2 steps hold?), then v and q.
#      Each letter's steps are skipped where LIMIT has no room.
#   o  goes to gpu_s25.sh; B to gpu_s29.sh; s to gpu_s31.sh; any other letter to gpu_s30.sh.
set -u
dir=$(dirname "$0")
source "$dir/gpu_steps.sh"
card=$(card_name); echo "card: $card"
letters=("$@")
if [ "${letters[*]}" = a ]; then
  case $card in *H200*) letters=(B o v q) ;; *) letters=(v q s) ;; esac
  echo "a on $card: ${letters[*]}"
fi
for letter in "${letters[@]}"; do
  case $letter in
    o) LIMIT="$(left)" bash "$dir/gpu_s25.sh" o ;;
    B) LIMIT="$(left)" bash "$dir/gpu_s29.sh" B ;;
    s) LIMIT="$(left)" bash "$dir/gpu_s31.sh" s ;;
    *) LIMIT="$(left)" bash "$dir/gpu_s30.sh" "$letter" ;;
  esac
done
echo "call done at ${SECONDS} s"
