#!/usr/bin/env bash
# Session 15's device plan (records). Session 15, like 14, was lent no device: this is the order in
# which the next session should spend its 30 device minutes (each call one run, <= 10 minutes;
# build here first with `make gpubin`, carry [".gpubin"]):
#   .gpubin/moegemv info | head -3   first, in the same call as run 1: since session 16 libnvrtc
#                        is opened at run time (never linked); if the NVRTC line says "none", find
#                        libnvrtc.so.13 there and export MOEGEMV_NVRTC_LIBRARY=<it> for every run
#   tools/gpu_s14.sh 1   all session-14 candidates against the default (check logs compared, A/B)
#   tools/gpu_s15.sh 7   Qwen3-Next's post-wait time localized (new mark points 5-7), [gpu] tests
#   tools/gpu_s14.sh 3   v43 at M = 16, gu_shx=2's check (its [gpu] tests are also in run 7)
#   tools/gpu_s14.sh 2   (or 4 / 4b, as run 1 points) which candidate pays
#   tools/gpu_s14.sh 6   closing bench (TUNE= the winners, if not yet defaults)
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
case "${1:?run number}" in
  7)  # Qwen3-Next M=1, pair with PDL: the down's second stamp at each mark point (timeline.cuh):
      # 1 its PDL wait, 2 first act row staged, 3 first slot filled, 5 first dot product done,
      # 4 first unit's sums handed over, 6 last unit's sums handed over, 7 the combiner's first
      # output stored. Session 9 (run 10) saw ~2 us between 3 and 4 for one unit of 2 steps per
      # warp; 5 splits it into the dot product and the hand-over. Then the [gpu] tests.
    for mk in 1 2 3 5 4 6 7; do
      echo "== dc_timeline=$mk"
      MOEGEMV_CACHE_DIR=/tmp/cache_tl$mk MOEGEMV_TUNE=gu_timeline=1,dc_timeline=$mk timeout 100 \
        .gpubin/moegemv bench --timeline --model qwen3-next --m 1 --batches 3 2>&1 |
        grep -aE -A3 "pair_pdl:" | head -4
    done | tee "$out/run7_timeline.txt"
    MOEGEMV_CACHE_DIR=/tmp/cache_tests timeout 240 .gpubin/test_runtime "[gpu]" > "$out/tests7.log" 2>&1
    echo "[gpu] tests: rc=$?"; grep -aE "^test cases|FAILED" "$out/tests7.log" | head -8
    ;;
  *) echo "gpu_s15.sh: run 7 only; the others are tools/gpu_s14.sh's" >&2; exit 2 ;;
esac
