#!/usr/bin/env bash
# Session 41's device plan (build: main, `make gpubin`; carry [".gpubin"]). The card is printed
# first: compare numbers only within a call. A call brings back at most 8 files (session 41's
# call 1 lost its bench JSON to that): everything under $OUT is packed into out.tgz at the end.
#   B  the closing bench (as gpu_s32.sh's b, which asks 170 s; this asks 80: the H200 took 65).
#   E  a shorter D for a short call: n K4 K8 K82 K42 n2 at M = 1 on Qwen3-Next and Qwen3.5-35B.
#   C  (session 42) the check's lines of the default, gu_dprek=4 and 8 (Qwen3-Next, seed 40).
#   d  by the card: an H200 runs E B C (gu_dprek's short A/B, the closing bench, the check), any
#      other card E C K (K: the down's mark points).
#   Any other letter goes to gpu_s40.sh (b, D, K, r and the earlier sessions' letters).
set -u
dir=$(dirname "$0")
source "$dir/gpu_steps.sh"
trap pack_out EXIT
by_card d "E B C" "E C K" "$@"
for letter in "${letters[@]}"; do
  case $letter in
    B) closing_bench s41 80 120 ;;
    E) step dprek 60 abr "n: K4:gu_dprek=4 K8:gu_dprek=8 K82:gu_dprek=8 K42:gu_dprek=4 n2:" \
         qwen3-next,qwen3.5-35b 1 " gate_up | down |pair" dprek.txt ;;
    C) step check 60 check_variants 40 4 K4:gu_dprek=4 K8:gu_dprek=8 ;;
    *) LIMIT="$(left)" bash "$dir/gpu_s40.sh" "$letter" ;;
  esac
done
echo "call done at ${SECONDS} s"
