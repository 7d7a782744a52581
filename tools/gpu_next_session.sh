#!/usr/bin/env bash
# For the session after 8 (prints everything; logs under $OUT). Build here first (`make gpubin`),
# then one device run with carry [".gpubin"]:
#   tools/gpu_next_session.sh
# dc_wstage=2 (built after session 8's device time, compiled without spills, not run on a GPU):
# the per-warp act staging of v26 also where the down has several warps per segment (DeepSeek-V3,
# GLM-4.5: 2; Llama-4: 8), each segment's warps between two barriers of their own instead of the
# CTA's. On Qwen3-Next (v26, one warp per segment) it took the down 6.66 -> 5.80 us. It also drops
# DeepSeek-V3's down from 94 to 62 registers (the CTA-wide staging's 8 loads in flight per thread
# were its peak), which may let a down CTA share an SM with a gate_up CTA under PDL.
# First the check and the [gpu] tests with it, then n w w n on the three wide presets.
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
MOEGEMV_TUNE=dc_wstage=2 MOEGEMV_CACHE_DIR=/tmp/cache_w2 timeout 200 .gpubin/moegemv check \
  --shape 7168:2048:2048:8 --shape 5120:1536:1536:8 --shape 5120:8192:8192:1 --shape 3072:1024:1536:6 \
  --m 1,3,16 --e 16 --replays 3 > "$out/check_w2.log" 2>&1
echo "== check dc_wstage=2 rc=$? (1 is also the known act/sact elements)"
tools/check_summary.sh "$out/check_w2.log"
MOEGEMV_TUNE=dc_wstage=2 MOEGEMV_CACHE_DIR=/tmp/cache_w2 timeout 120 .gpubin/test_runtime "[gpu]" \
  > "$out/test_runtime_w2.log" 2>&1
echo "test_runtime [gpu] dc_wstage=2 rc=$? $(tail -3 "$out/test_runtime_w2.log" | tr '\n' ' ')"
VARIANTS="n: w:dc_wstage=2 w:dc_wstage=2 n:" MODELS=deepseek-v3,glm-4.5,llama4-maverick MS=1,4 \
  ROWS=" down |pair_pdl|ceiling" tools/gpu_ab.sh
