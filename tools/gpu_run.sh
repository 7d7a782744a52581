#!/usr/bin/env bash
# One device-machine session: what `run` executes there (binaries built here, stripped into
# .gpubin/ by `make gpubin`). Usage: tools/gpu_run.sh [bench|test|check]... ; logs go to $OUT.
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
export MOEGEMV_CACHE_DIR=/tmp/moegemv-cache
bin=.gpubin
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
for step in "$@"; do
  case $step in
    bench) timeout 400 $bin/moegemv bench --json "$out/bench.json" 2>&1 | tee "$out/bench.log" | tail -80 ;;
    test) timeout 300 $bin/test_runtime 2>&1 | tee "$out/test_runtime.log" | tail -40 ;;
    check) timeout 500 $bin/moegemv check 2>&1 | tee "$out/check.log" | tail -40 ;;
    quickcheck) timeout 300 $bin/moegemv check --m 1,3,16,33 --e 16 --replays 20 2>&1 | tee "$out/check.log" | tail -40 ;;
  esac
done
