#!/usr/bin/env bash
# Session 31's device plan (build: main, `make gpubin`, and v56's as .gpubin/moegemv_v56; carry
# [".gpubin"]). The card is printed first: compare numbers only within a call.
#   a  by the card: every card runs session 30's v (main against v56 at M = 1, 4, 16, and v56's
#      check: q's a as the default build, so the decision's numbers come first), q (Llama-4 with
#      both gate_up tiles split against the routed ones alone and the M=1 kernel, and a's check)
#      and s (below); an H200 runs session 29's B (v55's closing bench) before s and k (the
#      streaming down's halves) last. Each letter's steps are skipped where LIMIT has no room.
#   s  Llama-4: q's a with the down's scale prefetch (dc_spre=1: -1.4% on the pair with PDL at M=1,
#      +0.7% at M=4 in session 29, H100s; -1.9% with 2-warp CTAs in session 30, an H100),
#      mirrored n a s s2 a2 n2, M = 1, 4.
#   Any other letter goes to gpu_s30.sh (q, v, ...) or, for B and k, to gpu_s29.sh.
set -u
dir=$(dirname "$0")
source "$dir/gpu_steps.sh"
card=$(card_name); echo "card: $card"
letters=("$@")
if [ "${letters[*]}" = a ]; then
  case $card in *H200*) letters=(v q B s k) ;; *) letters=(v q s) ;; esac
  echo "a on $card: ${letters[*]}"
fi
for letter in "${letters[@]}"; do
  case $letter in
    s) A=gu_split=1,gu_shx=2,gu_m1pipe=0
       step llama_split_spre 110 abr "n: a:$A s:$A,dc_spre=1 s2:$A,dc_spre=1 a2:$A n2:" \
         llama4-maverick 1,4 " gate_up | down |pair|ceiling" llama_split_spre.txt ;;
    B|k) LIMIT="$(left)" bash "$dir/gpu_s29.sh" "$letter" ;;
    *) LIMIT="$(left)" bash "$dir/gpu_s30.sh" "$letter" ;;
  esac
done
echo "call done at ${SECONDS} s"
