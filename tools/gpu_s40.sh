#!/usr/bin/env bash
# Session 40's device plan (build: main, `make gpubin`; carry [".gpubin"]). The card is printed
# first: compare numbers only within a call.
#   K  where v62's Qwen3-Next down spends its time after its wait at M=1 (the pair with PDL), by
#      the mark points dc_timeline = 1 2 3 5 4 7 (the wait, act staged, first slot filled, first
#      dot product, first hand-over, the combiner's first store; templates/timeline.cuh), with
#      v62's prefetch and without (gu_dpre=0); the first replay's down line of each printed.
#   d  by the card: an H200 runs b G P O t r (gpu_s39.sh's d), any other card K r (r: the
#      read-only bounds, now with 19.5 MB per launch: Qwen3-Next's whole layer in one kernel).
#   Any other letter goes to gpu_s39.sh.
set -u
dir=$(dirname "$0")
source "$dir/gpu_steps.sh"
by_card d "b G P O t r" "K r" "$@"
for letter in "${letters[@]}"; do
  case $letter in
    K) for form in v62: nodpre:gu_dpre=0; do
         for mark in 1 2 3 5 4 7; do
           TL_MODE=$mark step "${form%%:*}_mark$mark" 15 timeline "${form%%:*}$mark" "${form#*:}" qwen3-next \
             > /dev/null
         done
       done
       awk '/^-- timeline/ {h = $3 " " $NF} / pair_pdl: / {p = 1; next} / pair: / {p = 0}
            p && /  down [0-9]+ CTAs/ {print h ": " substr($0, 3, 150); p = 0}' "$out/tl_all.log" ;;
    *) LIMIT="$(left)" bash "$dir/gpu_s39.sh" "$letter" ;;
  esac
done
echo "call done at ${SECONDS} s"
