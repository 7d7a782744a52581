#!/usr/bin/env bash
# For the session after 7 (prints everything; nothing to fetch). Two device runs:
#   tools/gpu_next_session.sh 1   the check of the untested variants (dc_lanes=2, dc_lanes=3:
#     one producer lane per segment that prepares each copy before waiting, 3 polling without
#     suspending; dc_early=1: the first token's routing info before the PDL wait), then the
#     producers' A/B on the four presets: in order (i), session 7's lanes (l), 2 (p), 3 (s),
#     mirrored order. Session 7: lanes=1 made Qwen3-Next's down 20% faster but DeepSeek-V3's 5%
#     and GLM-4.5's 14% slower; if p or s wins everywhere it becomes the one producer.
#   tools/gpu_next_session.sh 2   dc_early=1 against the default (n e e n); Qwen3-Next's gate_up
#     with 3 and 4 steps in flight (gu_pipe; its single wave holds ~21 KB per SM) and its down with
#     2 consumer warps per segment (dc_chunks=2: 6% slower in session 5, when the in-order producer
#     bound it; no spills with the lanes, checked in SASS).
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
export MOEGEMV_CACHE_DIR=/tmp/cache_moegemv
if [ "${1:-1}" = 1 ]; then
  for tune in dc_lanes=2 dc_lanes=3 dc_early=1; do
    MOEGEMV_TUNE=$tune timeout 150 .gpubin/moegemv check --shape 7168:2048:2048:8 --shape 2048:512:512:10 \
      --shape 5120:8192:8192:1 --shape 5120:1536:1536:8 --shape 2048:768:0:8 --m 1,3,16 --e 16 --replays 3 \
      > "$out/check_$tune.log" 2>&1
    echo "== check $tune rc=$? (1 is also the known act/sact elements)"
    tools/check_summary.sh "$out/check_$tune.log"
  done
  VARIANTS="i:dc_lanes=0 l:dc_lanes=1 p:dc_lanes=2 s:dc_lanes=3 s:dc_lanes=3 p:dc_lanes=2 l:dc_lanes=1 i:dc_lanes=0" \
    tools/gpu_s7_producer.sh
else
  VARIANTS="n: e:dc_early=1 e:dc_early=1 n:" tools/gpu_s7_producer.sh
  # (register caps that keep these spill-free, checked in SASS: 8 and 6 CTAs/SM, still one wave of 704)
  for v in n: g3:gu_pipe=3,gu_minb=8 g4:gu_pipe=4,gu_minb=6 c:dc_chunks=2 c:dc_chunks=2 g4:gu_pipe=4,gu_minb=6 \
    g3:gu_pipe=3,gu_minb=8 n:; do
    name=${v%%:*}; tune=${v#*:}
    MOEGEMV_TUNE="$tune" timeout 60 .gpubin/moegemv bench --model qwen3-next --m 1,4 --batches 5 2>&1 |
      grep -E "^qwen" | grep -E "gate_up| down |pair_pdl" | awk -v n="$name" '{printf "%s %s M=%s %s %s\n", n, $1, $2, $3, $4}'
  done
fi
