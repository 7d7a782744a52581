#!/usr/bin/env bash
# Session 6, run 4: why the scale ring made the PDL pair slower on DeepSeek-V3. S = the ring as in
# run 3 (two units' scales issued before griddepcontrol.wait), P = one unit's before the wait, the
# second after it, and unit 0's expert kept from before the wait (as before the ring).
# Order S P P S, M = 1; then the check and [gpu] tests with P. Table last.
set -u
out=${OUT:-/tmp/out}
export MOEGEMV_CACHE_DIR=/tmp/cache_moegemv
for tag in s1:moegemv_s p1:moegemv p2:moegemv s2:moegemv_s; do
  name=${tag%%:*}; bin=${tag#*:}
  MOEGEMV_CACHE_DIR=/tmp/cache_$bin timeout 100 .gpubin/$bin bench --model deepseek-v3,glm-4.5,llama4-maverick,qwen3-next \
    --m 1 --batches 5 --json "$out/ab_$name.json" > "$out/ab_$name.log" 2>&1
  echo "$name rc=$? $(grep -h ceiling: "$out/ab_$name.log")"
done
tools/gpu_check_defaults.sh > "$out/check_summary.txt" 2>&1
head -c 1200 "$out/check_summary.txt"; tail -2 "$out/check_summary.txt"
for n in s1 p1 p2 s2; do
  grep -E "^(deepseek|glm|llama|qwen)" "$out/ab_$n.log" | grep -E " gate_up | down |pair_pdl|pair " |
    awk -v n=$n '{printf "%s %-16s M=%-2s %-9s %8s %6s\n", n, $1, $2, $3, $4, $8}'
done | sort -k2,2 -k3,3 -k4,4 -k1,1 > "$out/table.txt"
rm -f "$out"/ab_*.log "$out"/ab_s2.json "$out"/ab_p2.json
cat "$out/table.txt"
