#!/usr/bin/env bash
# Session 9's device runs (records). Build here first (`make gpubin`), carry [".gpubin"]:
#   tools/gpu_s9.sh 2
# Runs 2-4 need commit 6870729 (moe_block, reverted after them: slower; docs/PERF.md session 9).
# Run 2: moe_block (the down waiting per pair on gate_up's counters, templates/pair_sync.cuh).
# Check (with moe_block == gate_up then down_combine at M = 1, 4, 16, graph replays of two blocks
# on one sync), the [gpu] tests, then the bench twice on the four presets (rows pair_pdl, block).
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
case "${1:?run number}" in
  2)
    MOEGEMV_CACHE_DIR=/tmp/cache_s9 timeout 240 .gpubin/moegemv check \
      --shape 2048:512:512:10 --shape 2048:512:512:8 --shape 7168:2048:2048:8 \
      --shape 5120:8192:8192:1 --shape 3072:1024:1536:6 --m 1,3,16 --e 16 --replays 3 \
      > "$out/check.log" 2>&1
    echo "== check rc=$? (1 is also the known act/sact elements)"
    tools/check_summary.sh "$out/check.log"
    MOEGEMV_CACHE_DIR=/tmp/cache_s9 timeout 150 .gpubin/test_runtime "[gpu]" > "$out/test_runtime.log" 2>&1
    echo "test_runtime [gpu] rc=$? $(tail -3 "$out/test_runtime.log" | tr '\n' ' ')"
    grep -a -B3 "FAILED" "$out/test_runtime.log" | grep -aE "^(ops|TP|moe|PDL)" | sort | uniq -c
    for b in 1 2; do
      MOEGEMV_CACHE_DIR=/tmp/cache_s9 timeout 200 .gpubin/moegemv bench --m 1,2,4,8,16 \
        --json "$out/bench$b.json" > "$out/bench$b.log" 2>&1
      echo "== bench $b rc=$?"
      grep -aE "^(qwen|deep|glm|llama)" "$out/bench$b.log" | grep -E " (pair_pdl|block) " |
        awk '{printf "%-16s M=%-2s %-9s %8s us %6s%%\n", $1, $2, $3, $4, $8}'
      grep -a "ceiling" "$out/bench$b.log" | head -1
    done
    ;;
  6)  # v27 changed the down's sync structure (and DeepSeek-V3's registers 94 -> 62): re-test the
      # scale feed (dc_sahead: 2 on GLM-4.5 and Llama-4 by default, 1 on DeepSeek-V3) and the
      # per-lane producer (dc_lanes=1, lost 5-14% on the wide presets in session 7)
    VARIANTS="n: s2:dc_sahead=2 l1:dc_lanes=1 s1:dc_sahead=1 s1:dc_sahead=1 l1:dc_lanes=1 s2:dc_sahead=2 n:" \
      MODELS=deepseek-v3,glm-4.5,llama4-maverick MS=1,4 ROWS=" down |pair_pdl|ceiling" tools/gpu_ab.sh
    ;;
  7)  # Nsight Compute on the v27 down of DeepSeek-V3 (M=1): what bounds it now
    KERNELS=down_combine tools/gpu_profile.sh deepseek-v3 1 s9_v27
    ;;
  8)  # DIAGNOSTIC (wrong results): the down without most of its decode and scale multiply
      # (dc_knock=3), to test that Qwen3-Next's down after its PDL wait is bound by issue
    VARIANTS="n: k:dc_knock=3 k:dc_knock=3 n:" MODELS=qwen3-next,deepseek-v3 MS=1,4 \
      ROWS=" down |pair_pdl|ceiling" tools/gpu_ab.sh
    ;;
  9)  # DIAGNOSTIC (wrong results): run 8's knock-out split: dc_knock=1 (the e2m1 decode only),
      # dc_knock=2 (the scale multiply only), on DeepSeek-V3 and GLM-4.5
    VARIANTS="n: d:dc_knock=1 s:dc_knock=2 s:dc_knock=2 d:dc_knock=1 n:" MODELS=deepseek-v3,glm-4.5 \
      MS=1 ROWS=" down |pair_pdl|ceiling" tools/gpu_ab.sh
    ;;
  10)  # Qwen3-Next M=1: where the down's 2.8 us after its PDL wait go (timeline mark points)
    for mk in 1 2 3 4; do
      echo "== dc_timeline=$mk"
      MOEGEMV_CACHE_DIR=/tmp/cache_tl$mk MOEGEMV_TUNE=gu_timeline=1,dc_timeline=$mk timeout 100 \
        .gpubin/moegemv bench --timeline --model qwen3-next --m 1 --batches 3 2>&1 |
        grep -aE -A3 "pair_pdl:" | head -4
    done
    ;;
  11)  # dc_warm=1: a dry pass of the down's unit loop before its PDL wait (instruction cache)
    MOEGEMV_TUNE=dc_warm=1 MOEGEMV_CACHE_DIR=/tmp/cache_w timeout 150 .gpubin/moegemv check \
      --shape 2048:512:512:10 --shape 7168:2048:2048:8 --m 1,3,16 --e 16 --replays 2 > "$out/check_warm.log" 2>&1
    echo "== check dc_warm=1 rc=$? (1 is also the known act/sact elements)"
    tools/check_summary.sh "$out/check_warm.log"
    VARIANTS="n: w:dc_warm=1 w:dc_warm=1 n:" MODELS=qwen3-next,deepseek-v3,llama4-maverick MS=1,4 \
      ROWS=" down |pair_pdl|ceiling" tools/gpu_ab.sh
    ;;
  12)  # dc_l2ahead=1: the down's first-half CTAs prefetch their second-half partners' first units
    MOEGEMV_TUNE=dc_l2ahead=1 MOEGEMV_CACHE_DIR=/tmp/cache_l2a timeout 150 .gpubin/moegemv check \
      --shape 2048:512:512:10 --shape 7168:2048:2048:8 --m 1,3,16 --e 16 --replays 2 > "$out/check_l2a.log" 2>&1
    echo "== check dc_l2ahead=1 rc=$? (1 is also the known act/sact elements)"
    tools/check_summary.sh "$out/check_l2a.log" | grep -E " out |PDL"
    VARIANTS="n: a:dc_l2ahead=1 a:dc_l2ahead=1 n:" MODELS=deepseek-v3,glm-4.5,llama4-maverick,qwen3-next \
      MS=1,4 ROWS=" down |pair_pdl|ceiling" tools/gpu_ab.sh
    ;;
  13)  # DIAGNOSTIC dc_pwait=1: does the down's pre-wait weight traffic slow gate_up's tail?
    VARIANTS="n: p:dc_pwait=1 p:dc_pwait=1 n:" MODELS=deepseek-v3,glm-4.5,llama4-maverick,qwen3-next \
      MS=1,4 ROWS=" down |pair_pdl|ceiling" tools/gpu_ab.sh
    ;;
  14)  # the final commit's binaries: the check of every kernel path and the [gpu] tests
    tools/gpu_check_defaults.sh
    ;;
  15)  # Nsight Compute on Qwen3-Next's down (M=1): the stalls inside a unit's work
    KERNELS=down_combine tools/gpu_profile.sh qwen3-next 1 s9_qwen
    ;;
  5)  # the closing run (v27 defaults): check of every kernel path, the [gpu] tests, two full benches
    tools/gpu_check_defaults.sh
    MOEGEMV_CACHE_DIR=/tmp/cache_q35 timeout 120 .gpubin/moegemv check --shape 2048:512:512:8 \
      --m 1,3,16 --e 16 --replays 3 > "$out/check_qwen35.log" 2>&1
    echo "== check 2048:512:512:8 rc=$?"
    tools/check_summary.sh "$out/check_qwen35.log"
    for b in 1 2; do
      timeout 200 .gpubin/moegemv bench --m 1,2,4,8,16 --json "$out/s9_final$b.json" > "$out/s9_final$b.log" 2>&1
      echo "== bench $b rc=$?"
      grep -aE "^(qwen|deep|glm|llama)" "$out/s9_final$b.log" | grep -E " (pair_pdl|pair) " |
        awk '{printf "%-16s M=%-2s %-9s %8s us %6s%%\n", $1, $2, $3, $4, $8}'
      grep -a "ceiling" "$out/s9_final$b.log" | head -1
    done
    ;;
  4)  # gate_up publishes with one fence per CTA (thread 0's release) instead of two; timelines
    MOEGEMV_CACHE_DIR=/tmp/cache_s9 timeout 150 .gpubin/test_runtime "moe_block*" > "$out/test_block.log" 2>&1
    echo "test_runtime moe_block rc=$? $(tail -2 "$out/test_block.log" | tr '\n' ' ')"
    MOEGEMV_CACHE_DIR=/tmp/cache_tl MOEGEMV_TUNE=gu_timeline=1,dc_timeline=1 timeout 120 .gpubin/moegemv \
      bench --timeline --model qwen3-next --m 1 --batches 3 2>&1 | grep -aE -A3 "(pair_pdl|block):"
    ;&
  3)  # the combiner polls for its CTA (one poller per CTA instead of one per warp)
    MOEGEMV_CACHE_DIR=/tmp/cache_s9 timeout 150 .gpubin/test_runtime "moe_block*" > "$out/test_block.log" 2>&1
    echo "test_runtime moe_block rc=$? $(tail -2 "$out/test_block.log" | tr '\n' ' ')"
    for b in 1 2; do
      MOEGEMV_CACHE_DIR=/tmp/cache_s9 timeout 200 .gpubin/moegemv bench --m 1,4 \
        --model qwen3-next,deepseek-v3,llama4-maverick > "$out/bench$b.log" 2>&1
      echo "== bench $b rc=$?"
      grep -aE "^(qwen|deep|glm|llama)" "$out/bench$b.log" | grep -E " (pair_pdl|block|gate_up|down) " |
        awk '{printf "%-16s M=%-2s %-9s %8s us %6s%%\n", $1, $2, $3, $4, $8}'
      grep -a "ceiling" "$out/bench$b.log" | head -1
    done
    ;;
esac
