#!/usr/bin/env bash
# Session 26's device plan (build: main, `make gpubin`; carry [".gpubin"]). The card is printed
# first: compare numbers only within a call. Letters run in order; a step that no longer fits the
# call's LIMIT is skipped and says so; NEED=H200 stops on any other card (gpu_steps.sh). Session
# 25's letters (o r t: the H200's open questions) stay in tools/gpu_s25.sh.
#   w  gate_up in 8-warp CTAs, 2 per SM (gu_warps=8,gu_minb=2,gu_m1minb=2: the same 16 warps per
#      SM, each CTA's tile over twice the warps, so half its life) against the default 4-warp CTAs,
#      DeepSeek-V3, GLM-4.5, Llama-4 at M = 1, 4; then its check.
#   c  gate_up's L1/shared split in the pair (M=1): `s` pins gate_up to the split its down takes
#      (Llama-4 gu_carve=57: the 164 KB split; DeepSeek-V3 gu_carve=71: 196 KB), so no SM changes
#      split between the two kernels; `b` asks gate_up for a large L1 (gu_carve=25) so that each
#      SM changes split at every boundary. Rows: each op alone and both pairs.
set -u
source "$(dirname "$0")/gpu_steps.sh"
card=$(card_name); echo "card: $card"
w8=gu_warps=8,gu_minb=2,gu_m1minb=2
for letter in "$@"; do
case $letter in
  w) step warps8 130 abr "n: w:$w8 w2:$w8 n2:" deepseek-v3,glm-4.5,llama4-maverick 1,4 " gate_up |pair_pdl|ceiling" warps8.txt
     step check 25 check_keys warps8 "$w8" ;;
  c) step carve_llama 90 abr "n: s:gu_carve=57 b:gu_carve=25 b2:gu_carve=25 s2:gu_carve=57 n2:" llama4-maverick 1 \
       " gate_up | down |pair|ceiling" carve_llama.txt
     step carve_ds 90 abr "n: s:gu_carve=71 b:gu_carve=25 b2:gu_carve=25 s2:gu_carve=71 n2:" deepseek-v3 1 \
       " gate_up | down |pair|ceiling" carve_ds.txt ;;
  *) echo "gpu_s26.sh: no run letter $letter (w, c)" >&2 ;;
esac
done
echo "call done at ${SECONDS} s"
