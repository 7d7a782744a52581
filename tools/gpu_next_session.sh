#!/usr/bin/env bash
# For the session after 7, first device run (prints everything; nothing to fetch):
# 1. the check of the two untested producer variants (dc_lanes=2, 3: one lane per segment that
#    prepares each copy before waiting; 3 polls without suspending) on the streaming shapes;
# 2. their A/B against the in-order producer (dc_lanes=0) and session 7's lanes (dc_lanes=1) on
#    the four presets, mirrored order. Session 7 measured lanes=1 20% faster on Qwen3-Next's down
#    but 5-14% slower on DeepSeek-V3 and GLM-4.5; if 2 or 3 wins everywhere, it becomes the one
#    producer.
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
export MOEGEMV_CACHE_DIR=/tmp/cache_moegemv
for tune in dc_lanes=2 dc_lanes=3; do
  MOEGEMV_TUNE=$tune timeout 150 .gpubin/moegemv check --shape 7168:2048:2048:8 --shape 2048:512:512:10 \
    --shape 5120:8192:8192:1 --shape 5120:1536:1536:8 --shape 2048:768:0:8 --m 1,3,16 --e 16 --replays 3 \
    > "$out/check_$tune.log" 2>&1
  echo "== check $tune rc=$? (1 is also the known act/sact elements)"
  tools/check_summary.sh "$out/check_$tune.log"
done
VARIANTS="i:dc_lanes=0 l:dc_lanes=1 p:dc_lanes=2 s:dc_lanes=3 s:dc_lanes=3 p:dc_lanes=2 l:dc_lanes=1 i:dc_lanes=0" \
  tools/gpu_s7_producer.sh
