#!/usr/bin/env bash
# Benchmarks kernel-config variants (MOEGEMV_TUNE) in one device session; each line of
# tools/variants.txt is "NAME TUNE-STRING". Logs and JSON go to $OUT.
set -u
out=${OUT:-/tmp/out}
models=${MODELS:-deepseek-v3,qwen3-next}
ms=${MS:-1,4}
while read -r name tune; do
  [ -z "$name" ] && continue
  [ -n "${VARIANTS_FILTER:-}" ] && [ "$name" != "$VARIANTS_FILTER" ] && continue
  echo "== variant $name: ${tune:-default}"
  MOEGEMV_TUNE="$tune" MOEGEMV_CACHE_DIR=/tmp/moegemv-cache timeout 200 .gpubin/moegemv bench \
    --model "$models" --m "$ms" --batches 5 --json "$out/bench_$name.json" > "$out/bench_$name.log" 2>&1
  grep -E "^(deepseek|qwen|glm|llama|stream)" "$out/bench_$name.log" | grep -E "pair_pdl|gate_up|down|stream" | awk -v n="$name" '{print n, $0}'
done < "${VARIANTS:-tools/variants.txt}"
