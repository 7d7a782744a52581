#!/usr/bin/env bash
# Nsight Compute profile of one bench preset's kernels on the device machine (cold caches: ncu
# flushes them between passes). Usage: tools/gpu_profile.sh MODEL M ; reports go to $OUT.
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
model=${1:-deepseek-v3}
m=${2:-1}
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
export MOEGEMV_CACHE_DIR=/tmp/moegemv-cache
sections="--section SpeedOfLight --section MemoryWorkloadAnalysis --section SchedulerStats \
  --section WarpStateStats --section Occupancy --section LaunchStats --section ComputeWorkloadAnalysis"
timeout 300 "$ncu" --clock-control none --graph-profiling node $sections \
  -k regex:'moegemv_(gate_up|down)' -c 2 \
  .gpubin/moegemv bench --model "$model" --m "$m" --batches 1 --replays 1 \
  > "$out/ncu_${model}_m${m}.txt" 2>&1
echo "ncu rc=$? ($(wc -l < "$out/ncu_${model}_m${m}.txt") lines)"
timeout 300 "$ncu" --clock-control none --graph-profiling node --section SourceCounters \
  --section WarpStateStats -k regex:'moegemv_(gate_up|down)' -c 2 --page source \
  --print-source sass --csv \
  .gpubin/moegemv bench --model "$model" --m "$m" --batches 1 --replays 1 \
  > "$out/ncu_src_${model}_m${m}.csv" 2>&1
echo "ncu source rc=$? ($(wc -c < "$out/ncu_src_${model}_m${m}.csv") bytes)"
