#!/usr/bin/env bash
# A/B of two builds in one device run (.gpubin/moegemv vs .gpubin/moegemv_i2), order A B B A,
# each with its own cache; then the check with B. Used for session 4 v13 (docs/PERF.md).
set -u
out=$OUT
for tag in a1:moegemv b1:moegemv_i2 b2:moegemv_i2 a2:moegemv; do
  name=${tag%%:*}; bin=${tag#*:}
  MOEGEMV_CACHE_DIR=/tmp/cache_$bin timeout 100 .gpubin/$bin bench --model qwen3-next,llama4-maverick,qwen2-moe,glm-4.5 --m 1,4 \
    --json $out/ab_$name.json > $out/ab_$name.log 2>&1
  echo "$name rc=$? $(grep -h ceiling: $out/ab_$name.log)"
done
MOEGEMV_CACHE_DIR=/tmp/cache_moegemv_i2 timeout 120 .gpubin/moegemv_i2 check --shape 2048:512:512:10 --shape 5120:8192:8192:1 \
  --shape 2048:1408:5632:4 --m 1,3,16 --e 16 --replays 3 > $out/check_i2.log 2>&1
echo "check i2 rc=$?"
tools/check_summary.sh $out/check_i2.log
for n in a1 b1 b2 a2; do grep -E "^(qwen|llama|glm)" $out/ab_$n.log | grep -E "gate_up|down |pair_pdl" | awk -v n=$n '{printf "%s %-16s M=%s %-9s %8s\n", n, $1, $2, $3, $4}'; done | sort -k2,2 -k3,3 -k4,4 -k1,1
