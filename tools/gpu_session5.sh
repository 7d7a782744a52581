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
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
timeout 240 $bin/moegemv check --shape 7168:2048:2048:8 --shape 2048:512:512:10 --shape 5120:8192:8192:1 \
  --shape 3072:1024:1536:6 --shape 5120:1536:1536:8 --shape 2048:768:0:8 --m 1,3,16 --e 16 --replays 5 \
  > "$out/check.log" 2>&1
echo "check rc=$? (1 is also SPEC 8's known over-bound outputs: docs/CORRECTNESS.md)"
tools/check_summary.sh "$out/check.log"
timeout 150 $bin/test_runtime "[gpu]" > "$out/test_runtime.log" 2>&1
echo "test_runtime [gpu] rc=$? $(tail -3 "$out/test_runtime.log" | tr '\n' ' ')"
[ -n "${SKIP_AB:-}" ] || MODELS=deepseek-v3,qwen3-next MS=1 \
  VARIANTS=tools/variants_s5_final.txt tools/gpu_variants.sh | grep -E "pair_pdl|down"
timeout 240 $bin/moegemv bench --json "$out/bench_final.json" > "$out/bench_final.log" 2>&1
echo "bench rc=$?"
grep -h "ceiling:" "$out/bench_final.log"
grep -E "^(deepseek|qwen|glm|llama)" "$out/bench_final.log" | awk '$2 == 1 || $3 ~ /^pair/' | cut -c1-100
tar czf "$out/logs.tgz" -C "$out" --exclude logs.tgz --exclude "*.json" . 2>/dev/null; rm -f "$out"/*.log
