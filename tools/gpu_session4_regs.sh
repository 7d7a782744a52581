#!/usr/bin/env bash
# Session 4, v14: more resident gate_up warps with one step in flight (80 / 72 registers) against
# the defaults, in one run. JSON in $OUT; a table last.
set -u
out=${OUT:-/tmp/out}
export MOEGEMV_CACHE_DIR=/tmp/moegemv-cache
run() {  # NAME TUNE MODELS
  MOEGEMV_TUNE=$2 timeout 100 .gpubin/moegemv bench --model "$3" --m 1,4 --json "$out/bench_$1.json" > "$out/bench_$1.log" 2>&1
  grep -E "^(deepseek|qwen|llama)" "$out/bench_$1.log" | grep -E "gate_up|pair_pdl" | awk -v n="$1" '{printf "%-4s %-16s M=%-2s %-9s %8s %7s\n", n, $1, $2, $3, $4, $8}'
}
run def "" deepseek-v3,llama4-maverick,qwen3-next
run cls "gu_split=0" deepseek-v3
run p1w6 "gu_split=0,gu_pipe=1,gu_minb=6" deepseek-v3,llama4-maverick
run p1w5 "gu_split=0,gu_pipe=1,gu_minb=5" deepseek-v3,llama4-maverick
run q14 "gu_pipe=1,gu_minb=14" qwen3-next
grep -h "ceiling:" "$out"/bench_*.log
