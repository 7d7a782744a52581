#!/usr/bin/env bash
# Session 31's device plan (build: main, `make gpubin`, and v56's as .gpubin/moegemv_v56; carry
# [".gpubin"]). The card is printed first: compare numbers only within a call.
#   a  by the card: every card runs session 30's q (Llama-4 with both gate_up tiles split, and
#      a's check) and v (main against v56 at M = 1, 4, 16, and v56's check); an H200 then runs
#      session 29's B (v55's closing bench) and k (the streaming down's halves).
#   Any other letter goes to gpu_s30.sh (q, v, ...) or, for B and k, to gpu_s29.sh.
set -u
dir=$(dirname "$0")
source "$dir/gpu_steps.sh"
card=$(card_name); echo "card: $card"
letters=("$@")
if [ "${letters[*]}" = a ]; then
  case $card in *H200*) letters=(q v B k) ;; *) letters=(q v) ;; esac
  echo "a on $card: ${letters[*]}"
fi
for letter in "${letters[@]}"; do
  case $letter in
    B|k) LIMIT="$(left)" bash "$dir/gpu_s29.sh" "$letter" ;;
    *) LIMIT="$(left)" bash "$dir/gpu_s30.sh" "$letter" ;;
  esac
done
echo "call done at ${SECONDS} s"
