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
#   l  the bench's rotated layers: 2 (the rule before session 26 for these presets: one pair's
#      weights > 4x L2, but each op alone then cycles 1.9-5.6x L2) against 5 (Llama-4's memory
#      cap) and 8, M=1, mirrored: do the alone rows get L2 hits at 2 layers? (Call 13.)
#   g  GLM-4.5 under the new layer rule, M = 1: gu_spair=1 (s), dc_pipe=2 (p: the 164 KB split)
#      and both (b) against the default, mirrored: its H100 pair is 0.6% under the 80% target.
#   v  the final build's check (seed 61, four presets' shapes) and [gpu] tests.
#   b  the closing bench with session 26's layer rule (each op alone > 4x L2, at least 8 layers;
#      --seed 1): s26.json, s26.log; then M=1 with the rule before it (--layers: 2 on the three
#      large presets, Qwen3-Next 11 on an H100's 50 MB L2, 13 on an H200's 60 MB), old_*.json.
set -u
source "$(dirname "$0")/gpu_steps.sh"
card=$(card_name); echo "card: $card"
w8=gu_warps=8,gu_minb=2,gu_m1minb=2
# old_rule: M=1 with the layer counts of the rule before session 26 (the pair's bytes > 4x L2).
old_rule() {
  local q=11; case $card in *H200*) q=13 ;; esac
  for mq in deepseek-v3:2 glm-4.5:$([ $q = 13 ] && echo 3 || echo 2) llama4-maverick:2 qwen3-next:$q; do
    MOEGEMV_CACHE_DIR=/tmp/cache_close timeout 90 .gpubin/moegemv bench --model ${mq%%:*} --m 1 --seed 1 \
      --layers ${mq#*:} --json "$out/old_${mq%%:*}.json" 2>&1 | grep -a " M=1 " | sed "s/^/old(${mq#*:}) /"
  done
}
# layers_ab: each preset at M=1 with 2 layers, N, N, 2 (N: 5 for Llama-4, else 8).
layers_ab() {
  for model in llama4-maverick deepseek-v3 glm-4.5; do
    n=8; [ $model = llama4-maverick ] && n=5
    for v in d:2 x:$n x2:$n d2:2; do
      MOEGEMV_CACHE_DIR=/tmp/cache_layers timeout 120 .gpubin/moegemv bench --model $model --m 1 \
        --seed 1 --layers ${v#*:} --json "$out/layers_${model}_${v%%:*}.json" 2>&1 |
        grep -aE "^(deep|glm|llama)|ceiling" | sed "s/^/${v%%:*} /"
    done
  done | tee "$out/layers.txt"
}
for letter in "$@"; do
case $letter in
  w) step warps8 130 abr "n: w:$w8 w2:$w8 n2:" deepseek-v3,glm-4.5,llama4-maverick 1,4 " gate_up |pair_pdl|ceiling" warps8.txt
     step check 25 check_keys warps8 "$w8" ;;
  c) step carve_llama 90 abr "n: s:gu_carve=57 b:gu_carve=25 b2:gu_carve=25 s2:gu_carve=57 n2:" llama4-maverick 1 \
       " gate_up | down |pair|ceiling" carve_llama.txt
     step carve_ds 90 abr "n: s:gu_carve=71 b:gu_carve=25 b2:gu_carve=25 s2:gu_carve=71 n2:" deepseek-v3 1 \
       " gate_up | down |pair|ceiling" carve_ds.txt ;;
  l) step layers 150 layers_ab ;;
  b) MOEGEMV_CACHE_DIR=/tmp/cache_close step bench 200 eval 'timeout 300 .gpubin/moegemv bench --seed 1 \
       --json "$out/s26.json" > "$out/s26.log" 2>&1; echo "bench rc=$?"; grep -a "M=1 \|ceiling:" "$out/s26.log"'
     step old_rule 100 old_rule ;;
  g) step glm 120 abr "n: s:gu_spair=1 p:dc_pipe=2 b:gu_spair=1,dc_pipe=2 b2:gu_spair=1,dc_pipe=2 \
p2:dc_pipe=2 s2:gu_spair=1 n2:" glm-4.5 1 " gate_up | down |pair_pdl|ceiling" glm.txt ;;
  v) step check 30 check_keys final ""
     step tests 40 gpu_tests final ;;
  *) echo "gpu_s26.sh: no run letter $letter (w, c, l, b, v, g)" >&2 ;;
esac
done
echo "call done at ${SECONDS} s"
