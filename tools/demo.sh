#!/usr/bin/env bash
# `make demo`: what moegemv does, end to end. Without a GPU it shows codegen, NVRTC, the cache and
# bundles; with one it also checks both ops against the CPU reference and times DeepSeek-V3 at M=1.
set -euo pipefail
build=${1:-build}
cli=$build/moegemv
export MOEGEMV_CACHE_DIR=${MOEGEMV_CACHE_DIR:-$(mktemp -d)/moegemv-cache}
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "moegemv info"
$cli info
step "model presets and the kernel keys they need"
$cli models
step "generated CUDA for DeepSeek-V3's gate_up (the kernel logic lives in templates/*.cuh)"
$cli emit gate_up:7168:2048:2048:8 --arch sm_90
if $cli info --json 2>/dev/null | grep -q '"available": *true'; then gpu=1; else gpu=0; fi
arch_args=(--arch sm_90,sm_100a)
step "prewarm: compile DeepSeek-V3's kernels with NVRTC into the disk cache ($MOEGEMV_CACHE_DIR)"
$cli prewarm --model deepseek-v3 "${arch_args[@]}"
step "prewarm again: every kernel now comes from the cache"
$cli prewarm --model deepseek-v3 "${arch_args[@]}"
step "a shippable bundle of those kernels"
bundle=$(dirname "$MOEGEMV_CACHE_DIR")/deepseek-v3.moegemv
$cli bundle create -o "$bundle" --model deepseek-v3 "${arch_args[@]}"
$cli bundle list "$bundle"
$cli bundle verify "$bundle"
if [ "$gpu" = 1 ]; then
  step "GPU: both ops against the CPU reference (DeepSeek-V3 and Qwen3-Next shapes)"
  $cli check --shape 7168:2048:2048:8 --shape 2048:512:512:10 --m 1,4 --e 256 --replays 10 || true
  step "GPU: DeepSeek-V3 decode MoE block at M=1 against the streaming-read ceiling"
  $cli bench --model deepseek-v3 --m 1
else
  step "no GPU here: on a machine with one, demo would now run"
  echo "  $cli check --shape 7168:2048:2048:8 --shape 2048:512:512:10 --m 1,4 --e 256"
  echo "  $cli bench --model deepseek-v3 --m 1"
fi
