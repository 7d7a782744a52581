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
# Run 4: the down's griddepcontrol.launch_dependents later (dc_launch=1 after its first token's
# act is staged, 2 after its last unit), so that the next layer's gate_up pre-wait loads do not
# compete with the down's loads after its wait (run 3's timeline: the down needs 3.1-5.4 us after
# its wait with its weights already streamed); with the scale ring (s2, run 3: -0.2..-1 us).
if [ "$phase" = 4 ]; then
  for v in n: l1:dc_launch=1 l2:dc_launch=2; do
    name=${v%%:*}; tune=${v#*:}
    echo "== timeline $name ($tune)"
    MOEGEMV_CACHE_DIR=/tmp/cache_tl_$name MOEGEMV_TUNE="gu_timeline=1,dc_timeline=1${tune:+,$tune}" timeout 100 \
      .gpubin/moegemv bench --timeline --model qwen3-next --m 1 --batches 3 2>&1 | grep -A3 "pair_pdl:" | head -4
  done
  VARIANTS="n: l1:dc_launch=1 l2:dc_launch=2 s2:dc_sahead=2 s2l1:dc_sahead=2,dc_launch=1 \
s2l1:dc_sahead=2,dc_launch=1 s2:dc_sahead=2 l2:dc_launch=2 l1:dc_launch=1 n:" MS=1,2,4 tools/gpu_ab.sh
  VARIANTS="n: l1:dc_launch=1 l1:dc_launch=1 n:" MODELS=deepseek-v3,glm-4.5,llama4-maverick ROWS=" down |pair_pdl|ceiling" tools/gpu_ab.sh
fi
# Run 5: where the down's 3-5 us after its PDL wait go (Qwen3-Next M=1, the new default with the
# scale ring): the timeline's second stamp moved to mark point 2 (first token's act staged), 3
# (first slot filled), 4 (first unit's sums handed over); then the check of the new default on
# I <= 512 shapes and the A/B against the scale feed in registers (dc_sahead=1, the old default).
if [ "$phase" = 5 ]; then
  for mk in 1 2 3 4; do
    echo "== timeline, second stamp at mark $mk (1 = the PDL wait)"
    MOEGEMV_CACHE_DIR=/tmp/cache_tl_m$mk MOEGEMV_TUNE="gu_timeline=1,dc_timeline=$mk" timeout 100 \
      .gpubin/moegemv bench --timeline --model qwen3-next,glm-4.5 --m 1 --batches 3 2>&1 | grep -A2 "pair_pdl:" | grep -v "^--"
  done
  timeout 200 .gpubin/moegemv check --shape 2048:512:512:10 --shape 4096:512:0:8 --shape 2048:256:256:16 \
    --m 1,3,16 --e 32 --replays 3 > "${OUT:-/tmp}/check.log" 2>&1
  echo "== check rc=$? (1 is also the known act/sact elements)"
  tools/check_summary.sh "${OUT:-/tmp}/check.log"
  VARIANTS="n: o:dc_sahead=1 o:dc_sahead=1 n:" MS=1,2,4,8 tools/gpu_ab.sh
fi
# Run 6: v24, the M = 1 gate_up kernel where H <= 2048 (3 steps in flight, 8 CTAs/SM), against
# gu_m1pipe=0 (v23) in one run (n o o n, M = 1, 2, 4: M >= 2 must be unchanged); the check and the
# [gpu] tests of the defaults; then the full M = 1..16 table with JSON.
if [ "$phase" = 6 ]; then
  out=${OUT:-/tmp/out}
  VARIANTS="n: o:gu_m1pipe=0 o:gu_m1pipe=0 n:" MS=1,2,4 tools/gpu_ab.sh
  tools/gpu_check_defaults.sh
  timeout 200 .gpubin/moegemv bench --json "$out/s8_full.json" > "$out/s8_full.log" 2>&1
  echo "full rc=$?"
  grep -E "^(qwen|deep|glm|llama|stream)" "$out/s8_full.log" | grep -E "pair_pdl|ceiling"
fi
# Run 7: does the M = 1 gate_up kernel help the wide presets too? 3 steps in flight at their
# general kernel's CTAs/SM (DeepSeek-V3, GLM-4.5: 4, 128 registers, no spill) or at 4 CTAs/SM
# (Llama-4: 5 spills at 3 steps), M = 1 only, n p p n. Then v24's Qwen3-Next timeline.
if [ "$phase" = 7 ]; then
  VARIANTS="n: p:gu_m1pipe=3 p:gu_m1pipe=3 n:" MODELS=deepseek-v3,glm-4.5 MS=1 BATCHES=7 tools/gpu_ab.sh
  VARIANTS="n: p:gu_m1pipe=3,gu_m1minb=4 p:gu_m1pipe=3,gu_m1minb=4 n:" MODELS=llama4-maverick MS=1 BATCHES=7 tools/gpu_ab.sh
  for mk in 1 4; do
    echo "== v24 timeline, second stamp at mark $mk (1 = the PDL wait)"
    MOEGEMV_CACHE_DIR=/tmp/cache_tl_v24_$mk MOEGEMV_TUNE="gu_timeline=1,dc_timeline=$mk" timeout 100 \
      .gpubin/moegemv bench --timeline --model qwen3-next --m 1 --batches 3 2>&1 | grep -A2 "pair_pdl:" | grep -v "^--"
  done
fi
# Run 8: Qwen3-Next's down two CTAs per SM (dc_maxreg=72: 2 x 13 warps x 72 registers = 60K; a
# 3- or 2-slot ring so two fit in shared memory), so the persistent grid is 264 CTAs and each
# takes one unit at M = 1: run 5's marks put ~1.6 us into each unit after the PDL wait, done one
# after the other. n a b b a n, M = 1, 2, 4, then the timeline of a. Then the check of run 7's
# Llama-4 candidate (the M = 1 gate_up kernel at 3 steps, 4 CTAs/SM, as MOEGEMV_TUNE) on K = 1
# shapes.
if [ "$phase" = 8 ]; then
  VARIANTS="n: a:dc_maxreg=72,dc_pipe=3 b:dc_maxreg=72,dc_pipe=2 b:dc_maxreg=72,dc_pipe=2 a:dc_maxreg=72,dc_pipe=3 n:" \
    MS=1,2,4 tools/gpu_ab.sh
  echo "== timeline a"
  MOEGEMV_CACHE_DIR=/tmp/cache_tl_a MOEGEMV_TUNE="gu_timeline=1,dc_timeline=1,dc_maxreg=72,dc_pipe=3" timeout 100 \
    .gpubin/moegemv bench --timeline --model qwen3-next --m 1 --batches 3 2>&1 | grep -A2 "pair_pdl:" | grep -v "^--"
  MOEGEMV_TUNE=gu_m1pipe=3,gu_m1minb=4 timeout 200 .gpubin/moegemv check --shape 5120:8192:8192:1 \
    --shape 4096:1024:1024:1 --shape 2048:512:0:1 --m 1,3,16 --e 16 --replays 3 > "${OUT:-/tmp}/check_llama.log" 2>&1
  echo "== check llama m1 rc=$? (1 is also the known act/sact elements)"
  tools/check_summary.sh "${OUT:-/tmp}/check_llama.log"
fi
# Run 9: run 8's b (dc_maxreg=72,dc_pipe=2: -4% at M=1, -3% at M=4) spills 20 bytes; without
# the scale ring (dc_sahead=1: at M = 1 each CTA has one unit, so nothing to fetch ahead) it does
# not (c). n b c c b n, M = 1, 2, 4, 8.
if [ "$phase" = 9 ]; then
  VARIANTS="n: b:dc_maxreg=72,dc_pipe=2 c:dc_maxreg=72,dc_pipe=2,dc_sahead=1 c:dc_maxreg=72,dc_pipe=2,dc_sahead=1 \
b:dc_maxreg=72,dc_pipe=2 n:" MS=1,2,4,8 tools/gpu_ab.sh
fi
# Run 10 (the last): v25 = two down CTAs per SM on Qwen3-Next (run 9's c) and the M = 1 gate_up
# kernel on Llama-4 (run 7's p), each against the config before in one run (n o o n); the check
# and [gpu] tests of the defaults; the full M = 1..16 table with JSON.
if [ "$phase" = 10 ]; then
  out=${OUT:-/tmp/out}
  VARIANTS="n: o:dc_maxreg=0,dc_pipe=4,dc_sahead=2 o:dc_maxreg=0,dc_pipe=4,dc_sahead=2 n:" MS=1,4 \
    ROWS=" down |pair_pdl|ceiling" tools/gpu_ab.sh
  VARIANTS="n: o:gu_m1pipe=0 o:gu_m1pipe=0 n:" MODELS=llama4-maverick MS=1,4 ROWS=" gate_up |pair_pdl|ceiling" tools/gpu_ab.sh
  tools/gpu_check_defaults.sh
  timeout 200 .gpubin/moegemv bench --json "$out/s8_final.json" > "$out/s8_final.log" 2>&1
  echo "full rc=$?"
  grep -E "^(qwen|deep|glm|llama|stream)" "$out/s8_final.log" | grep -E "pair_pdl|ceiling"
fi
# Run 11: v25's timelines with the down's mark points (1 = the PDL wait, 2 = first act staged,
# 4 = first unit handed over) on Qwen3-Next and DeepSeek-V3, M = 1, for the notes.
if [ "$phase" = 11 ]; then
  for mk in 1 2 4; do
    echo "== v25 timeline, second stamp at mark $mk"
    MOEGEMV_CACHE_DIR=/tmp/cache_tl_v25_$mk MOEGEMV_TUNE="gu_timeline=1,dc_timeline=$mk" timeout 100 \
      .gpubin/moegemv bench --timeline --model qwen3-next,deepseek-v3 --m 1 --batches 3 2>&1 | grep -A2 "pair_pdl:" | grep -v "^--"
  done
fi
# Run 12: DeepSeek-V3's down spends ~4 us between its PDL wait and its first token's act staged
# (run 11, mark 2). Is it the routing info's dependent loads (ids -> alpha2) after the act's? With
# dc_early=1 (first token's info and gssd before the wait) the mark moves if so.
if [ "$phase" = 12 ]; then
  for tune in "" ",dc_early=1"; do
    for mk in 1 2; do
      echo "== timeline mark $mk$tune"
      MOEGEMV_CACHE_DIR=/tmp/cache_tl12_$mk$tune MOEGEMV_TUNE="gu_timeline=1,dc_timeline=$mk$tune" timeout 100 \
        .gpubin/moegemv bench --timeline --model deepseek-v3 --m 1 --batches 3 2>&1 | grep -A2 "pair_pdl:" | grep -E "pair_pdl|down"
    done
  done
fi
# Run 13: per-warp act staging (dc_wstage=1) where the down has one warp per segment: each
# consumer warp stages only its own act row, the combiner the routing info (the first token's
# before the wait), no CTA barrier at a token change. n w w n on Qwen3-Next, M = 1, 2, 4, 8; then
# the check and the [gpu] tests with it, on shapes with one warp per segment.
if [ "$phase" = 13 ]; then
  out=${OUT:-/tmp/out}
  VARIANTS="n: w:dc_wstage=1 w:dc_wstage=1 n:" MS=1,2,4,8 ROWS=" down |pair_pdl|ceiling" tools/gpu_ab.sh
  MOEGEMV_TUNE=dc_wstage=1 timeout 150 .gpubin/moegemv check --shape 2048:512:512:10 --shape 2048:512:512:16 \
    --shape 3072:1024:1024:7 --shape 2048:768:0:8 --m 1,3,16 --e 32 --replays 3 > "$out/check_wstage.log" 2>&1
  echo "== check wstage rc=$? (1 is also the known act/sact elements)"
  tools/check_summary.sh "$out/check_wstage.log"
  MOEGEMV_TUNE=dc_wstage=1 timeout 100 .gpubin/test_runtime "[gpu]" > "$out/test_runtime_wstage.log" 2>&1
  echo "test_runtime [gpu] wstage rc=$? $(tail -3 "$out/test_runtime_wstage.log" | tr '\n' ' ')"
fi
