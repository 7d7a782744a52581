#!/usr/bin/env bash
# The correctness check of the closing device runs (tools/gpu_session4_final.sh, gpu_session5.sh):
# `moegemv check` on shapes that cover every kernel path (M = 1, 3, 16) and the [gpu] tests, with
# whatever MOEGEMV_TUNE is set. Logs in $OUT (check.log, test_runtime.log), a summary on stdout.
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
bin=.gpubin
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
timeout 240 $bin/moegemv check --shape 7168:2048:2048:8 --shape 2048:512:512:10 --shape 5120:8192:8192:1 \
  --shape 3072:1024:1536:6 --shape 5120:1536:1536:8 --shape 2048:768:0:8 --m 1,3,16 --e 16 --replays 5 \
  > "$out/check.log" 2>&1
echo "check rc=$? (1 is also SPEC 8's known over-bound outputs: docs/CORRECTNESS.md)"
tools/check_summary.sh "$out/check.log"
timeout 150 $bin/test_runtime "[gpu]" > "$out/test_runtime.log" 2>&1
echo "test_runtime [gpu] rc=$? $(tail -3 "$out/test_runtime.log" | tr '\n' ' ')"
