#!/usr/bin/env bash
# Session 18's device runs (calls came on an H100, then an H200: docs/PERF.md, Session 18). Build
# here (`make gpubin`), carry [".gpubin"]; each run fits one 10-minute call.
#   1  decode=3 (v40 + v41, same bits) alone against the default on every preset and M, mirrored
#      (n d d2 n2); Llama-4's down with 4 warps per segment (dc_chunks=4) at every M
#   2  the closing bench (TUNE= the winners until they are defaults)
#   3  v45 (decode=3 and Llama-4's 4 warps per segment as defaults) against the build before it
#      (.gpubin/moegemv_old), o n n o on every preset at M = 1, 4; the [gpu] tests; then run 2
#   4  the last ~150 s: on an H200, run 3's A/B at M = 1; on an H100 (call 9), DeepSeek-V3 at M = 16
#      twice per build (was the pair without PDL's slowness and spread repeatable?); then nothing
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
DECODE=gu_decode=3,dc_decode=3
v45_ab() {  # v45 against the build before it (o n n o), every preset, M = $1; table to $2
  VARIANTS="o@moegemv_old: n: n2: o2@moegemv_old:" MODELS=deepseek-v3,glm-4.5,llama4-maverick,qwen3-next \
    MS=$1 ROWS=" gate_up | down |pair_pdl|ceiling" tools/gpu_ab.sh | tee "$out/$2"
}
case "${1:?run number}" in
  1)
    VARIANTS="n: d:$DECODE d2:$DECODE n2:" MODELS=deepseek-v3,glm-4.5,llama4-maverick,qwen3-next MS=1,2,4 \
      ROWS=" gate_up | down |pair_pdl|ceiling" tools/gpu_ab.sh | tee "$out/run1_small.txt"
    VARIANTS="n: d:$DECODE d2:$DECODE n2:" MODELS=deepseek-v3,glm-4.5,llama4-maverick,qwen3-next MS=8,16 \
      ROWS=" gate_up | down |pair_pdl|ceiling" tools/gpu_ab.sh | tee "$out/run1_large.txt"
    VARIANTS="n: c:dc_chunks=4 c2:dc_chunks=4 n2:" MODELS=llama4-maverick MS=1,2,4,8,16 \
      ROWS=" down |pair_pdl|ceiling" tools/gpu_ab.sh | tee "$out/run1_llama.txt"
    ;;
  3)
    MOEGEMV_CACHE_DIR=/tmp/cache_tests timeout 200 .gpubin/test_runtime "[gpu]" > "$out/tests3.log" 2>&1
    echo "[gpu] tests: rc=$?"; grep -aE "^test cases" "$out/tests3.log"
    v45_ab 1,4 run3.txt
    "$0" 2
    ;;
  4)
    card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $card"
    case $card in
      *H200*) v45_ab 1 run4.txt ;;
      *) echo "not an H200: nothing to add (call 9 ran the H100 part)" ;;
    esac
    ;;
  2)
    MOEGEMV_TUNE=${TUNE:-} MOEGEMV_CACHE_DIR=/tmp/cache_final timeout 300 .gpubin/moegemv bench \
      --json "$out/s18_final.json" > "$out/s18_final.log" 2>&1
    echo "bench: rc=$?"; grep -a "M=1 \|PDL saving" -A0 "$out/s18_final.log" | head -20
    ;;
esac
