#!/usr/bin/env bash
# Session 14's device runs (records). Build here first (`make gpubin`), carry [".gpubin"]:
#   tools/gpu_s14.sh 1
# .gpubin/moegemv_s13 is session 13's final code (commit 3c614da) for two-build A/Bs.
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
check_counts() {  # out FAIL / nan / unwritten lines of a check log
  echo "$1: rc=$2 out FAIL $(grep -ac 'out FAIL' "$1") out PASS $(grep -ac 'out PASS' "$1") nan>0 $(grep -ac 'nan=[1-9]' "$1") unwritten>0 $(grep -ac 'unwritten=[1-9]' "$1")"
}
case "${1:?run number}" in
  1)  # v39: the decode's high-half selector moved by an f16 multiply (HMUL2 .H1_H1, FMA pipe)
      # instead of a shift (integer ALU): same bits, so the check logs of the two builds must be
      # identical (same seed); the exhaustive decode probe now also covers every 16-bit half.
      # Then o x x o against session 13's build on every preset, and the [gpu] tests.
    for b in moegemv_s13 moegemv; do
      MOEGEMV_SEED=61 MOEGEMV_CACHE_DIR=/tmp/cache_chk_$b timeout 250 .gpubin/$b check \
        --shape 7168:2048:2048:8 --shape 5120:1536:1536:8 --shape 5120:8192:8192:1 --shape 2048:512:512:10 \
        --m 1,3,16 --e 16,256 --replays 2 > "$out/check_$b.log" 2>&1
      check_counts "$out/check_$b.log" $?
      grep -av "took\|PASS capture\|decode" "$out/check_$b.log" > "$out/check_$b.cmp"
    done
    cmp "$out/check_moegemv_s13.cmp" "$out/check_moegemv.cmp" && echo "check logs identical"
    grep -a "^decode\|decode:" "$out/check_moegemv.log" | head -2
    VARIANTS="o@moegemv_s13: x: x2: o2@moegemv_s13:" MODELS=deepseek-v3,glm-4.5,llama4-maverick,qwen3-next \
      MS=1,4,16 ROWS=" gate_up | down |pair_pdl|ceiling" tools/gpu_ab.sh | tee "$out/run1.txt"
    MOEGEMV_CACHE_DIR=/tmp/cache_chk_moegemv timeout 300 .gpubin/test_runtime "[gpu]" > "$out/tests1.log" 2>&1
    echo "[gpu] tests: rc=$?"; grep -aE "^test cases|FAILED" "$out/tests1.log" | head -8
    ;;
esac
