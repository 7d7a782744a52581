#!/usr/bin/env bash
# Variants (tools/variants_stream.txt) benchmarked in one run, then an Nsight Compute profile and
# the SASS opcode histogram of one streaming config. Logs in $OUT; a table last.
set -u
final=${OUT:-/tmp/out}
out=/tmp/work
mkdir -p "$out" "$final"
export OUT=$out
export MOEGEMV_CACHE_DIR=/tmp/moegemv-cache
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
MODELS=${MODELS:-deepseek-v3,qwen3-next,glm-4.5,llama4-maverick} MS=${MS:-1,4} \
  VARIANTS=${VARIANTS:-tools/variants_stream.txt} tools/gpu_variants.sh > "$out/variants.log" 2>&1
if [ -n "${PROFILE_TUNE:-}" ]; then
  MOEGEMV_TUNE=$PROFILE_TUNE tools/gpu_profile.sh deepseek-v3 1 prof > "$out/profile.log" 2>&1
  for f in "$out"/ncu_src_prof_*.csv; do python3 tools/ncu_src.py "$f" 2>&1 | head -45; done > "$out/ncu_top.txt"
  cat "$out/profile.log"
  rm -f "$out"/ncu_src_prof_*.csv
fi
if command -v cuobjdump > /dev/null; then
  python3 tools/sass_stats.py /tmp/moegemv-cache "$out" > "$out/sass_stats.txt" 2>&1
  cut -c1-600 "$out/sass_stats.txt"
else
  echo "no cuobjdump"
fi
grep -E " (1|4) +(pair_pdl|gate_up|down) " "$out/variants.log" | awk '{printf "%-3s %-16s M=%-2s %-9s %8s us %7s\n", $1, $2, $3, $4, $5, $9}'
grep -h "ceiling:" "$out"/bench_*.log
tar czf "$final/run.tgz" -C "$out" .
