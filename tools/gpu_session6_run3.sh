#!/usr/bin/env bash
# Session 6, run 3: three builds in one run, order A S B B S A, each with its own cache:
# A = before this session's kernel changes, S = + the down's scale ring (cp.async, 2 units
# ahead), B = S + gate_up's partial sums overlaid on x (2 KB less shared memory per CTA). Then the
# check and [gpu] tests with B. Summary table last.
set -u
out=${OUT:-/tmp/out}
export MOEGEMV_CACHE_DIR=/tmp/cache_moegemv
for tag in a1:moegemv_a s1:moegemv_s b1:moegemv b2:moegemv s2:moegemv_s a2:moegemv_a; do
  name=${tag%%:*}; bin=${tag#*:}
  MOEGEMV_CACHE_DIR=/tmp/cache_$bin timeout 150 .gpubin/$bin bench --model deepseek-v3,glm-4.5,llama4-maverick,qwen3-next \
    --m 1,4 --batches 5 --json "$out/ab_$name.json" > "$out/ab_$name.log" 2>&1
  echo "$name rc=$? $(grep -h ceiling: "$out/ab_$name.log")"
done
tools/gpu_check_defaults.sh > "$out/check_summary.txt" 2>&1
head -c 1500 "$out/check_summary.txt"; tail -2 "$out/check_summary.txt"
for n in a1 s1 b1 b2 s2 a2; do
  grep -E "^(deepseek|glm|llama|qwen)" "$out/ab_$n.log" | grep -E " gate_up | down |pair_pdl|pair " |
    awk -v n=$n '{printf "%s %-16s M=%-2s %-9s %8s %6s\n", n, $1, $2, $3, $4, $8}'
done | sort -k2,2 -k3,3 -k4,4 -k1,1 > "$out/table.txt"
grep "M=1" "$out/table.txt"
# (the device returns only a few files: keep one JSON per build, the table and the check)
rm -f "$out"/ab_*.log "$out"/ab_a2.json "$out"/ab_s2.json "$out"/ab_b2.json
