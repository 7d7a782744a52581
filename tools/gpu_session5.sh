#!/usr/bin/env bash
# Session 5's checking run, default configs: the correctness check on shapes that cover every
# kernel path (M = 1, 3, 16), the [gpu] tests, a few variants
# (tools/variants_s5_final.txt, M = 1, 4), then the full benchmark for docs/PERF.md. JSON and logs
# in $OUT; a table last.
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
export MOEGEMV_CACHE_DIR=/tmp/moegemv-cache
bin=.gpubin
OUT="$out" tools/gpu_check_defaults.sh
[ -n "${SKIP_AB:-}" ] || MODELS=deepseek-v3,qwen3-next MS=1 \
  VARIANTS=tools/variants_s5_final.txt tools/gpu_variants.sh | grep -E "pair_pdl|down"
timeout 240 $bin/moegemv bench --json "$out/bench_final.json" > "$out/bench_final.log" 2>&1
echo "bench rc=$?"
grep -h "ceiling:" "$out/bench_final.log"
grep -E "^(deepseek|qwen|glm|llama)" "$out/bench_final.log" | awk '$2 == 1 || $3 ~ /^pair/' | cut -c1-100
tar czf "$out/logs.tgz" -C "$out" --exclude logs.tgz --exclude "*.json" . 2>/dev/null; rm -f "$out"/*.log
