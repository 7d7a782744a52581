#!/usr/bin/env bash
# Session 6, closing run: the defaults at the end of the session (dc_sahead per shape) checked on
# every kernel path ([gpu] tests too), then the full bench (M = 1..16, the four presets).
set -u
out=${OUT:-/tmp/out}
export MOEGEMV_CACHE_DIR=/tmp/cache_moegemv
tools/gpu_check_defaults.sh > "$out/check_summary.txt" 2>&1
head -c 1500 "$out/check_summary.txt"; tail -2 "$out/check_summary.txt"
timeout 240 .gpubin/moegemv bench --json "$out/bench_final.json" > "$out/bench_final.log" 2>&1
echo "bench rc=$?"
grep -vE "^  |^\[" "$out/bench_final.log" | tail -90
