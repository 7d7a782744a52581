#!/usr/bin/env bash
# For the session after 5: the experimental 4-row streaming down (dc_rows=4, built in session 5,
# never run). First its correctness on the shapes that take it (and one that falls back), then
# A B A B against the default on DeepSeek-V3 and Llama-4 (M = 1, 4). Logs in $OUT; a table last.
set -u
out=${OUT:-/tmp/out}
export MOEGEMV_CACHE_DIR=/tmp/moegemv-cache
MOEGEMV_TUNE=dc_rows=4 timeout 120 .gpubin/moegemv check --shape 7168:2048:2048:8 --shape 5120:8192:8192:1 \
  --shape 5120:1536:1536:8 --m 1,3,16 --e 16 --replays 3 > "$out/check_rows4.log" 2>&1
echo "check rc=$? (1 is also SPEC 8's known over-bound act/sact elements)"
tools/check_summary.sh "$out/check_rows4.log"
for v in a1: b1:dc_rows=4 a2: b2:dc_rows=4; do
  name=${v%%:*}; tune=${v#*:}
  MOEGEMV_TUNE="$tune" timeout 60 .gpubin/moegemv bench --model deepseek-v3,llama4-maverick --m 1,4 --batches 5 \
    --json "$out/bench_$name.json" > "$out/bench_$name.log" 2>&1
  grep -E "^(deepseek|llama)" "$out/bench_$name.log" | grep -E " down |pair_pdl" |
    awk -v n="$name" '{printf "%-3s %-16s M=%-2s %-9s %8s %6s\n", n, $1, $2, $3, $4, $8}'
done
