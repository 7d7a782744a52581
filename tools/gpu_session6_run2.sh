#!/usr/bin/env bash
# Session 6, run 2: the streaming down's block scales through a cp.async ring two units ahead
# (.gpubin/moegemv) against the register scales one unit ahead (.gpubin/moegemv_a, the build
# before): the check and [gpu] tests with the new build, then bench A B B A (own caches).
set -u
out=${OUT:-/tmp/out}
export MOEGEMV_CACHE_DIR=/tmp/cache_moegemv
tools/gpu_check_defaults.sh
for tag in a1:moegemv_a b1:moegemv b2:moegemv a2:moegemv_a; do
  name=${tag%%:*}; bin=${tag#*:}
  MOEGEMV_CACHE_DIR=/tmp/cache_$bin timeout 150 .gpubin/$bin bench --model deepseek-v3,glm-4.5,llama4-maverick,qwen3-next \
    --m 1,4 --batches 5 --json "$out/ab_$name.json" > "$out/ab_$name.log" 2>&1
  echo "$name rc=$? $(grep -h ceiling: "$out/ab_$name.log")"
done
for n in a1 b1 b2 a2; do
  grep -E "^(deepseek|glm|llama|qwen)" "$out/ab_$n.log" | grep -E " gate_up | down |pair_pdl|pair " |
    awk -v n=$n '{printf "%s %-16s M=%-2s %-9s %8s %6s\n", n, $1, $2, $3, $4, $8}'
done | sort -k2,2 -k3,3 -k4,4 -k1,1
