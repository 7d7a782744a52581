#!/usr/bin/env bash
# Session 7: where Qwen3-Next's kernels spend their time at M=1 (ncu, both kernels, alone).
set -u
out=${OUT:-/tmp/out}
tools/gpu_profile.sh qwen3-next 1 q1
for k in gate_up down_combine; do
  python3 tools/ncu_regions.py "$out/ncu_src_q1_$k.csv" 40
done
