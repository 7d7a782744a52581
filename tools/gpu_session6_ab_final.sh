#!/usr/bin/env bash
# Session 6: the final default (dc_sahead=1 through ScaleFeed on DeepSeek-V3 and Qwen3-Next)
# against the build before the session's kernel changes (moegemv_a), order A F F A, M = 1.
set -u
out=${OUT:-/tmp/out}
for tag in a1:moegemv_a f1:moegemv f2:moegemv a2:moegemv_a; do
  name=${tag%%:*}; bin=${tag#*:}
  MOEGEMV_CACHE_DIR=/tmp/cache_$bin timeout 60 .gpubin/$bin bench --model deepseek-v3,qwen3-next --m 1 --batches 5 \
    > "$out/ab_$name.log" 2>&1
  echo "$name $(grep -h ceiling: "$out/ab_$name.log")"
  grep -E "^(deepseek|qwen)" "$out/ab_$name.log" | awk -v n=$name '{printf "%s %-12s %-9s %8s\n", n, $1, $3, $4}'
done
