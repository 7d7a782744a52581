#!/usr/bin/env bash
# Session 8 device runs (records; prints everything). Run 3: Qwen3-Next's pair at M=1 with the
# down's registers capped (dc_maxreg) so that its CTA (13 warps, 104 registers = 43K) fits beside
# gate_up's 5-6 CTAs (64 threads x 95 = 6K each) and streams its weights under gate_up's; the
# scale ring (dc_sahead=2) that fetches both units' scales before the PDL wait; session 8 run 2's
# gate_up with 3 steps in flight (g3). First the CTA timeline of each, then the A/B.
set -u
export MOEGEMV_CACHE_DIR=/tmp/cache_s8
phase=${1:-3}
if [ "$phase" = 3 ]; then
  for v in n: d80:dc_maxreg=80 dg:dc_maxreg=80,gu_maxreg=88 s2:dc_sahead=2 g3:gu_pipe=3,gu_minb=8; do
    name=${v%%:*}; tune=${v#*:}
    echo "== timeline $name ($tune)"
    MOEGEMV_CACHE_DIR=/tmp/cache_tl_$name MOEGEMV_TUNE="gu_timeline=1,dc_timeline=1${tune:+,$tune}" timeout 100 \
      .gpubin/moegemv bench --timeline --model qwen3-next --m 1 --batches 3 2>&1 | grep -A3 "pair_pdl:" | head -4
  done
  VARIANTS="n: d80:dc_maxreg=80 dg:dc_maxreg=80,gu_maxreg=88 s2:dc_sahead=2 g3:gu_pipe=3,gu_minb=8 \
g3d:gu_pipe=3,gu_minb=8,dc_maxreg=80 g3d:gu_pipe=3,gu_minb=8,dc_maxreg=80 g3:gu_pipe=3,gu_minb=8 s2:dc_sahead=2 \
dg:dc_maxreg=80,gu_maxreg=88 d80:dc_maxreg=80 n:" MS=1,2,4 tools/gpu_ab.sh
fi
