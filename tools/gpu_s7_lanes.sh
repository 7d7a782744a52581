#!/usr/bin/env bash
# Session 7, run 6: the per-lane producer polling with a bounded try_wait (no nap), against the
# build before (a) and one copy per slot (r), order a l r r l a; then the check of both variants.
set -u
out=${OUT:-/tmp/out}
VARIANTS="a: l:dc_lanes=1 r:dc_runs=1 r:dc_runs=1 l:dc_lanes=1 a:" tools/gpu_s7_producer.sh
for tune in dc_lanes=1 dc_runs=1; do
  MOEGEMV_CACHE_DIR=/tmp/cache_moegemv MOEGEMV_TUNE=$tune timeout 150 .gpubin/moegemv check \
    --shape 7168:2048:2048:8 --shape 2048:512:512:10 --shape 5120:8192:8192:1 --shape 5120:1536:1536:8 \
    --shape 2048:768:0:8 --m 1,3,16 --e 16 --replays 3 > "$out/check_$tune.log" 2>&1
  echo "== check $tune rc=$?"
  tools/check_summary.sh "$out/check_$tune.log"
done
