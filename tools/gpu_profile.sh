#!/usr/bin/env bash
# Nsight Compute profile of one bench preset's kernels on the device machine (cold caches: ncu
# flushes them between passes). Usage: tools/gpu_profile.sh MODEL M [TAG]; reports go to $OUT:
# ncu_TAG_KERNEL.txt (sections) and ncu_src_TAG_KERNEL.csv (per-SASS-instruction stall samples).
# KERNELS (default "gate_up down_combine") picks the kernels; PIPES=1 adds a pass of the pipes'
# utilization (ncu_pipes_TAG_KERNEL.txt: each pipe's active cycles and instructions, % of peak).
set -u
source "$(dirname "$0")/gpu_steps.sh"  # $out (made from OUT), ncu_path
model=${1:-deepseek-v3}
m=${2:-1}
tag=${3:-${model}_m${m}}
ncu=$(ncu_path)
export MOEGEMV_CACHE_DIR=${MOEGEMV_CACHE_DIR:-/tmp/moegemv-cache}
sections="--section SpeedOfLight --section MemoryWorkloadAnalysis --section SchedulerStats \
  --section WarpStateStats --section Occupancy --section LaunchStats --section ComputeWorkloadAnalysis"
bench=(.gpubin/moegemv bench --model "$model" --m "$m" --batches 1 --replays 1)
for kernel in ${KERNELS:-gate_up down_combine}; do
  name=${kernel//[^a-zA-Z0-9_]/_}  # a regex in KERNELS: a plain file name
  timeout 200 "$ncu" --clock-control none --graph-profiling node $sections \
    -k regex:"moegemv_$kernel" -c 1 "${bench[@]}" > "$out/ncu_${tag}_$name.txt" 2>&1
  timeout 200 "$ncu" --clock-control none --graph-profiling node --section SourceCounters \
    -k regex:"moegemv_$kernel" -c 1 --page source --print-source sass --csv "${bench[@]}" \
    > "$out/ncu_src_${tag}_$name.csv" 2>&1
  if [ "${PIPES:-0}" = 1 ]; then
    timeout 200 "$ncu" --clock-control none --graph-profiling node -k regex:"moegemv_$kernel" -c 1 \
      --metrics 'regex:^sm__(pipe_.*_cycles_active|inst_executed_pipe_[a-z0-9_]*)\.avg\.pct_of_peak_sustained_active$' \
      "${bench[@]}" > "$out/ncu_pipes_${tag}_$name.txt" 2>&1
    grep -E "sm__(pipe|inst_executed_pipe)" "$out/ncu_pipes_${tag}_$name.txt" | awk '$NF+0 >= 5 {print "  " $1, $NF}'
  fi
  echo "== $tag $kernel"
  grep -E "Duration|DRAM Throughput|Issue Slots Busy|No Eligible|Registers Per|Warp Cycles Per Issued|Achieved Occupancy|SM Frequency" \
    "$out/ncu_${tag}_$name.txt" | awk '{$1=$1; print "  " $0}'
done
