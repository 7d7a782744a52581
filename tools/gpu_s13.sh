#!/usr/bin/env bash
# Session 13's device runs (records). Build here first (`make gpubin`), carry [".gpubin"]:
#   tools/gpu_s13.sh 1
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
case "${1:?run number}" in
  1)  # More consumer warps in the streaming down: 3 warps per segment (27 on DeepSeek-V3 and
      # GLM-4.5, 63-64 registers, no spill) against the default 2 (18); Llama-4 (K = 1) 12 and 15
      # warps per segment against 8. Mirrored n c c n, own caches.
    VARIANTS="n: c3:dc_chunks=3 c3b:dc_chunks=3 n2:" MODELS=deepseek-v3,glm-4.5 MS=1,2,4,8 \
      ROWS=" down |pair|ceiling" tools/gpu_ab.sh | tee "$out/run1.txt"
    VARIANTS="n: c12:dc_chunks=12 c15:dc_chunks=15 c15b:dc_chunks=15 c12b:dc_chunks=12 n2:" \
      MODELS=llama4-maverick MS=1,4,16 ROWS=" down |pair|ceiling" tools/gpu_ab.sh | tee "$out/run1_llama.txt"
    ;;
esac
