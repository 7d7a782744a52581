#!/usr/bin/env bash
# Session 5's last variants (M = 1, 4): gate_up's pipe depth with the per-warp x staging, and
# Llama-4's warps per down segment with the decoupled combiner. Logs in $OUT; a table last.
set -u
out=${OUT:-/tmp/out}
export MOEGEMV_CACHE_DIR=/tmp/moegemv-cache
run() {  # NAME TUNE MODELS
  MOEGEMV_TUNE="$2" timeout 150 .gpubin/moegemv bench --model "$3" --m 1,4 --batches 5 \
    --json "$out/bench_$1.json" > "$out/bench_$1.log" 2>&1
  grep -E "^(deepseek|qwen|glm|llama)" "$out/bench_$1.log" | grep -E "gate_up|down|pair_pdl" |
    awk -v n="$1" '{printf "%-4s %-16s M=%-2s %-9s %8s %6s\n", n, $1, $2, $3, $4, $8}'
}
run d0 "" deepseek-v3,glm-4.5,llama4-maverick
run p3 "gu_pipe=3,gu_minb=3" deepseek-v3,glm-4.5,llama4-maverick
run l8 "dc_chunks=8" llama4-maverick
run l2 "dc_chunks=2" llama4-maverick
run d0b "" deepseek-v3,glm-4.5,llama4-maverick
