#!/usr/bin/env bash
# Session 4's profile run: Nsight Compute on the default kernels (DeepSeek-V3 and Qwen3-Next,
# M=1), on the streaming gate_up (12 consumer warps), and the SASS opcode histograms of every
# cubin built. Summaries print; reports and stall tables come back in run.tgz.
set -u
final=${OUT:-/tmp/out}
out=/tmp/work
mkdir -p "$out" "$final"
export OUT=$out MOEGEMV_CACHE_DIR=/tmp/moegemv-cache
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
prof() {  # TAG MODEL TUNE KERNELS
  MOEGEMV_TUNE=$3 KERNELS=$4 tools/gpu_profile.sh "$2" 1 "$1" 2>&1
  for f in "$out"/ncu_src_"$1"_*.csv; do python3 tools/ncu_src.py "$f" 2>&1 | head -45; done > "$out/ncu_top_$1.txt"
  rm -f "$out"/ncu_src_"$1"_*.csv
}
prof ds_default deepseek-v3 "" "gate_up down_combine"
prof ds_gustream12 deepseek-v3 "gu_stream=1,gu_warps=12" "gate_up"
prof qwen_default qwen3-next "" "gate_up down_combine"
if command -v cuobjdump > /dev/null; then
  python3 tools/sass_stats.py /tmp/moegemv-cache "$out" > "$out/sass_stats.txt" 2>&1
  cut -c1-400 "$out/sass_stats.txt"
fi
for f in "$out"/ncu_top_*.txt; do echo "## $f"; grep -E "^==|% of instructions" "$f" | head -14; done
tar czf "$final/run.tgz" -C "$out" .
