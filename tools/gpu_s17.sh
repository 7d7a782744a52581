#!/usr/bin/env bash
# Session 17's device runs (the first device since session 13). Build here (`make gpubin`), carry
# [".gpubin"]. Each run is sized for one 10-minute call and leaves raw lines under $OUT as it goes
# (ab_raw.txt), so a call cut short still returns what it measured.
#   a  NVRTC line of `info`; session 14's check (default against ALL, logs compared); run 1's A/B
#      (n a a n) on every preset at M = 1 and 4 (the targets' M)
#   b  the [gpu] tests; ALL against the default at M = 16 (v43's grouped down runs there)
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
# libnvrtc is opened at run time (session 16): where the loader does not find it, point at one.
if ! .gpubin/moegemv info 2>&1 | grep -aq "^NVRTC *[0-9]"; then
  lib=$(find / -name 'libnvrtc.so.13*' -not -path '*/proc/*' 2>/dev/null | head -1)
  [ -n "$lib" ] && export MOEGEMV_NVRTC_LIBRARY=$lib
fi
echo "MOEGEMV_NVRTC_LIBRARY=${MOEGEMV_NVRTC_LIBRARY:-unset}"
.gpubin/moegemv info 2>&1 | head -4
DECODE=gu_decode=3,dc_decode=3
ALL=$DECODE,gu_bindex=1,dc_bindex=1,dc_gcount=1,gu_shx=1
check_counts() {
  echo "$1: rc=$2 out FAIL $(grep -ac 'out FAIL' "$1") out PASS $(grep -ac 'out PASS' "$1") nan>0 $(grep -ac 'nan=[1-9]' "$1") unwritten>0 $(grep -ac 'unwritten=[1-9]' "$1")"
}
case "${1:?run name}" in
  a)
    for tune in "" $ALL; do
      name=${tune:+all}; name=${name:-default}
      start=$SECONDS
      MOEGEMV_SEED=61 MOEGEMV_TUNE=$tune MOEGEMV_CACHE_DIR=/tmp/cache_chk_$name timeout 150 .gpubin/moegemv check \
        --shape 7168:2048:2048:8 --shape 5120:8192:8192:1 --shape 2048:512:512:10 --m 1,3,16 --e 16,256 --replays 2 \
        > "$out/check_$name.log" 2>&1
      check_counts "$out/check_$name.log" $?; echo "  ($((SECONDS - start)) s)"
      grep -av "took\|PASS capture" "$out/check_$name.log" > "$out/check_$name.cmp"
    done
    cmp "$out/check_default.cmp" "$out/check_all.cmp" && echo "check logs identical"
    start=$SECONDS
    VARIANTS="n: a:$ALL a2:$ALL n2:" MODELS=deepseek-v3,glm-4.5,llama4-maverick,qwen3-next MS=1,4 \
      ROWS=" gate_up | down |pair_pdl|ceiling" tools/gpu_ab.sh | tee "$out/run_a.txt"
    echo "A/B: $((SECONDS - start)) s"
    ;;
  b)
    MOEGEMV_CACHE_DIR=/tmp/cache_tests timeout 200 .gpubin/test_runtime "[gpu]" > "$out/tests_b.log" 2>&1
    echo "[gpu] tests: rc=$?"; grep -aE "^test cases|FAILED" "$out/tests_b.log" | head -8
    start=$SECONDS
    VARIANTS="n: a:$ALL a2:$ALL n2:" MODELS=deepseek-v3,glm-4.5,llama4-maverick MS=16 \
      ROWS=" gate_up | down |pair_pdl|ceiling" tools/gpu_ab.sh | tee "$out/run_b.txt"
    echo "A/B: $((SECONDS - start)) s"
    ;;
esac
