#!/usr/bin/env bash
# Correctness of one kernel config on the device machine, on shapes that cover the code paths
# (DeepSeek-V3; SI > I with a 64-element tail; SI not a multiple of I; no shared expert).
# Usage: MOEGEMV_TUNE=... tools/gpu_quickcheck.sh TAG ; log in $OUT/check_TAG.log
set -u
out=${OUT:-/tmp/out}
tag=${1:-default}
MOEGEMV_CACHE_DIR=${MOEGEMV_CACHE_DIR:-/tmp/moegemv-cache} timeout 240 .gpubin/moegemv check \
  --shape 7168:2048:2048:8 --shape 2048:1408:5632:4 --shape 3072:1024:1536:6 \
  --shape 2048:768:0:8 --m 1,3,16 --e 16 --replays 10 > "$out/check_$tag.log" 2>&1
echo "check $tag (${MOEGEMV_TUNE:-default}) rc=$?"
tools/check_summary.sh "$out/check_$tag.log"
