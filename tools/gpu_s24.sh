#!/usr/bin/env bash
# Session 24's device plan (build: v50 with the carve knob, `make gpubin`; carry [".gpubin"]).
# The card is printed first: compare numbers only within a call. Several letters run in one call,
# in order; a step that no longer fits the call's LIMIT is skipped and says so.
#   e  v50's closing bench (all presets and M, --seed 1); on an H200 first DeepSeek-V3's
#      dc_safter=1 against v48 and v50's default (o n c c2 n2 o2, M = 1, 4): gpu_s23.sh e.
#   c  gate_up in a chosen L1/shared split (gu_carve: the preferred carveout, a hint): 0 % shared
#      (the most L1) and 100 % (228 KB shared, 28 KB of L1) against the driver's choice, gate_up
#      alone and the pairs, DeepSeek-V3 and GLM-4.5 at M = 1: does gate_up alone lose in a 28 KB
#      L1 what it lost under PDL after a 228 KB-split down (session 23), and gain from more L1?
#   g  DeepSeek-V3's grouped down at 6 and 7 rings against 8 (gpu_s23.sh g).
#   f  the scale-after downs' register cap against none (gpu_s23.sh f).
set -u
source "$(dirname "$0")/gpu_steps.sh"
card=$(card_name); echo "card: $card"
for letter in "$@"; do
case $letter in
  e|g|f) LIMIT=$((limit - SECONDS)) OUT=$out "$(dirname "$0")/gpu_s23.sh" "$letter" | grep -v "^card:" ;;
  c) step carve 100 abr "n: l:gu_carve=0 s:gu_carve=100 s2:gu_carve=100 l2:gu_carve=0 n2:" \
       deepseek-v3,glm-4.5 1 " gate_up |pair|ceiling" carve.txt ;;
  *) echo "gpu_s24.sh: no run letter $letter (c, e, f, g)" >&2 ;;
esac
done
echo "call done at ${SECONDS} s"
