#!/usr/bin/env bash
# Session 40's device plan (build: main, `make gpubin`; carry [".gpubin"]). The card is printed
# first: compare numbers only within a call.
#   K  where v62's Qwen3-Next down spends its time after its wait at M=1 (the pair with PDL), by
#      the mark points dc_timeline = 1 2 3 5 4 7 (the wait, act staged, first slot filled, first
#      dot product, first hand-over, the combiner's first store; templates/timeline.cuh), with
#      v62's prefetch and without (gu_dpre=0); the first replay's down line of each printed.
#   D  gu_dprek (each share of v62's down prefetch asked by k CTAs, the first to finish bringing
#      it in), mirrored n K2 K4 K8 K82 K42 K22 n2 at M = 1 on Qwen3-Next, Qwen3.5-35B, Qwen3-30B;
#      the check of Qwen3-Next's shape with k = 8 against the default's lines; Qwen3-Next's
#      timeline with k = 4.
#   d  by the card: an H200 runs b G P O t r (gpu_s39.sh's d), any other card D K r (r: the
#      read-only bounds, now with 19.5 MB per launch: Qwen3-Next's whole layer in one kernel).
#   Any other letter goes to gpu_s39.sh.
set -u
dir=$(dirname "$0")
source "$dir/gpu_steps.sh"
by_card d "b G P O t r" "D K r" "$@"
for letter in "${letters[@]}"; do
  case $letter in
    D) step dprek 170 abr "n: K2:gu_dprek=2 K4:gu_dprek=4 K8:gu_dprek=8 K82:gu_dprek=8 K42:gu_dprek=4 K22:gu_dprek=2 n2:" \
         qwen3-next,qwen3.5-35b,qwen3-30b 1 " gate_up | down |pair" dprek.txt
       step check 50 check_variants 40 4 K8:gu_dprek=8
       step tl_k4 20 timeline k4 gu_dprek=4 qwen3-next ;;
    K) for form in v62: nodpre:gu_dpre=0; do
         for mark in 1 2 3 5 4 7; do
           TL_MODE=$mark step "${form%%:*}_mark$mark" 15 timeline "${form%%:*}$mark" "${form#*:}" qwen3-next \
             | grep -a "skipped"
         done
       done
       awk '/^-- timeline/ {h = $3 " " $NF} / pair_pdl: / {p = 1; next} / pair: / {p = 0}
            p && /  down [0-9]+ CTAs/ {print h ": " substr($0, 3, 150); p = 0}' "$out/tl_all.log" ;;
    *) LIMIT="$(left)" bash "$dir/gpu_s39.sh" "$letter" ;;
  esac
done
echo "call done at ${SECONDS} s"
