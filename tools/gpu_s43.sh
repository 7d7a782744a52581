#!/usr/bin/env bash
# Session 43's device plan (build: main, `make gpubin`; carry [".gpubin"]). The card is printed
# first: compare numbers only within a call; everything under $OUT is packed into out.tgz.
#   H  `bench --hot`: many CTAs staging the same activation lines against each its own copy, and
#      one read shared by a cluster's CTAs (Qwen3-Next's M = 1 shapes; ~15 s).
#   A  the down's act staging knocked out (`dc_knock=512`, wrong results) against the default,
#      mirrored n X X2 n2, at M = 1 on Qwen3-Next and Qwen3.5-35B: what reading gate_up's output
#      after the PDL wait costs the pair.
#   B  the closing bench (as gpu_s41.sh's B), its JSON.
#   a  H A B on any card.
#   Any other letter goes to gpu_s40.sh (b, D, K, r and the earlier sessions' letters).
set -u
dir=$(dirname "$0")
source "$dir/gpu_steps.sh"
trap pack_out EXIT
by_card a "H A B" "H A B" "$@"
for letter in "${letters[@]}"; do
  case $letter in
    H) step hot 30 eval "timeout 60 .gpubin/moegemv bench --hot > $out/hot.txt 2>&1; cat $out/hot.txt" ;;
    A) step knock 50 abr "n: X:dc_knock=512 X2:dc_knock=512 n2:" qwen3-next,qwen3.5-35b 1 \
         " gate_up | down |pair" knock.txt ;;
    B) closing_bench s43 80 120 ;;
    *) LIMIT="$(left)" bash "$dir/gpu_s40.sh" "$letter" ;;
  esac
done
echo "call done at ${SECONDS} s"
