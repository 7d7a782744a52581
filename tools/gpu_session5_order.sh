#!/usr/bin/env bash
# Session 5's last run: gate_up with the shared expert's CTAs first (gu_order=1) against the
# default, A B A B, M = 1 and 4; then the correctness check with gu_order=1. Logs in $OUT.
set -u
out=${OUT:-/tmp/out}
export MOEGEMV_CACHE_DIR=/tmp/moegemv-cache
for v in a1: b1:gu_order=1 a2: b2:gu_order=1; do
  name=${v%%:*}; tune=${v#*:}
  MOEGEMV_TUNE="$tune" timeout 60 .gpubin/moegemv bench --model deepseek-v3,glm-4.5,llama4-maverick,qwen3-next \
    --m 1,4 --batches 5 --json "$out/bench_$name.json" > "$out/bench_$name.log" 2>&1
  grep -E "^(deepseek|qwen|glm|llama)" "$out/bench_$name.log" | grep -E "gate_up|pair_pdl" |
    awk -v n="$name" '{printf "%-3s %-16s M=%-2s %-9s %8s %6s\n", n, $1, $2, $3, $4, $8}'
done
MOEGEMV_TUNE=gu_order=1 timeout 60 .gpubin/moegemv check --shape 7168:2048:2048:8 --shape 2048:512:512:10 \
  --m 1,3 --e 16 --replays 3 > "$out/check_order.log" 2>&1
echo "check rc=$?"
tools/check_summary.sh "$out/check_order.log"
