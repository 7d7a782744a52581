#!/usr/bin/env bash
# Session 7, run 7 (the last): the new default (one producer lane per segment at I <= 512, i.e.
# Qwen3-Next) against the build before, order a n n a; the correctness check and [gpu] tests of
# the new default; then the full M = 1..16 table with JSON for docs/PERF.md and the plot.
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
VARIANTS="a: n: n: a:" tools/gpu_s7_producer.sh
MOEGEMV_CACHE_DIR=/tmp/cache_moegemv tools/gpu_check_defaults.sh
MOEGEMV_CACHE_DIR=/tmp/cache_moegemv timeout 150 .gpubin/moegemv bench --json "$out/s7_full.json" > "$out/s7_full.log" 2>&1
echo "full rc=$?"
grep -E "^(qwen|deep|glm|llama|stream)" "$out/s7_full.log" | grep -E "pair_pdl|ceiling"
