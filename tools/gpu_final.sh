#!/usr/bin/env bash
# One device session that benchmarks the config variants of tools/variants.txt, picks the one
# with the fastest DeepSeek-V3 M=1 pair (PDL), then checks it (tools/gpu_quickcheck.sh), runs
# the full default bench and the [gpu] tests with it. Logs and JSON in $OUT; a table last.
set -u
out=${OUT:-/tmp/out}
export MOEGEMV_CACHE_DIR=/tmp/moegemv-cache
MODELS=${MODELS:-deepseek-v3,qwen3-next,glm-4.5,llama4-maverick} MS=${MS:-1,4} tools/gpu_variants.sh \
  > "$out/variants.txt" 2>&1
best=$(grep -E "^[a-z0-9]+ deepseek-v3 +1 pair_pdl" "$out/variants.txt" | sort -k5 -n | head -1 | awk '{print $1}')
tune=$(awk -v n="$best" '$1 == n {print $2}' tools/variants.txt)
echo "best variant: $best (${tune:-default})"
export MOEGEMV_TUNE="$tune"
tools/gpu_quickcheck.sh "$best" > "$out/quickcheck.txt" 2>&1
timeout 200 .gpubin/moegemv bench --json "$out/bench_final.json" > "$out/bench_final.log" 2>&1
echo "bench rc=$?"
timeout 120 .gpubin/test_runtime "[gpu]" > "$out/test_runtime.log" 2>&1
echo "test_runtime [gpu] rc=$? $(tail -2 "$out/test_runtime.log" | tr '\n' ' ')"
cat "$out/quickcheck.txt"
grep -E "pair_pdl|gate_up|down" "$out/variants.txt" | grep -E " 1 " 
sed -n '/^model/,$p' "$out/bench_final.log" | grep -E "^model|pair_pdl| M=|PDL" | head -40
