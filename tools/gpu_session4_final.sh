#!/usr/bin/env bash
# Session 4's closing run, default configs: the correctness check on shapes that cover every
# kernel path (M = 1, 3, 16), the [gpu] tests, the full benchmark (4 presets, M = 1..16) for
# docs/PERF.md, then two one-preset experiments. JSON and logs in $OUT; a table last.
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
export MOEGEMV_CACHE_DIR=/tmp/moegemv-cache
bin=.gpubin
OUT="$out" tools/gpu_check_defaults.sh
timeout 240 $bin/moegemv bench --json "$out/bench_final.json" > "$out/bench_final.log" 2>&1
echo "bench rc=$?"
MOEGEMV_TUNE=dc_chunks=8 timeout 60 $bin/moegemv bench --model llama4-maverick --m 1,4 --json "$out/bench_llama_c8.json" \
  > "$out/bench_llama_c8.log" 2>&1
MOEGEMV_TUNE=gu_warps=2,gu_minb=10 timeout 60 $bin/moegemv bench --model qwen3-next --m 1,4 --json "$out/bench_qwen_w2.json" \
  > "$out/bench_qwen_w2.log" 2>&1
grep -h "ceiling:" "$out/bench_final.log"
grep -E "^(deepseek|qwen|glm|llama)" "$out/bench_final.log" | awk '$2 == 1 || $3 ~ /^pair/' | cut -c1-100
grep -hE "^(qwen|llama)" "$out/bench_llama_c8.log" "$out/bench_qwen_w2.log" | cut -c1-100
tar czf "$out/logs.tgz" -C "$out" --exclude logs.tgz --exclude "*.json" . 2>/dev/null; rm -f "$out"/*.log
