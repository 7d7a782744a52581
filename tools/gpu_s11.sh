#!/usr/bin/env bash
# Session 11's device runs (records). Build here first (`make gpubin`), carry [".gpubin"]:
#   tools/gpu_s11.sh 1
# The knobs of runs 2-5 were reverted: run 2 needs a build of commit 4692a44, runs 3-4 of
# 3322e80 or 11e78a7, run 5 of 6cedc35 (with .gpubin/moegemv_head from 11e78a7); run 9 compares
# the current build with .gpubin/moegemv_head (11e78a7, session 10's kernels).
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
case "${1:?run number}" in
  1)  # session 10's open question: is `out` over SPEC 8's bound likelier with v31's decode?
      # Needs .gpubin/moegemv_c2f8caf, the CLI of commit c2f8caf (the decode before v31):
      #   git worktree add /tmp/wt c2f8caf && make -C /tmp/wt gpubin JOBS=2 &&
      #   cp /tmp/wt/.gpubin/moegemv .gpubin/moegemv_c2f8caf
      # Same seeds for both builds, interleaved, until the time budget is spent; one line per
      # (seed, build, shape): the `out` verdict and its worst bound ratio.
    t0=$(date +%s)
    for seed in $(seq 101 400); do
      [ $(( $(date +%s) - t0 )) -gt ${BUDGET_S:-480} ] && break
      for bin in moegemv_c2f8caf moegemv; do
        MOEGEMV_SEED=$seed MOEGEMV_CACHE_DIR=/tmp/cache_$bin timeout 60 .gpubin/$bin check \
          --shape 5120:8192:8192:1 --shape 7168:2048:2048:8 --m 16 --e 16 --replays 1 2>&1 |
          grep -aE "^(PASS|FAIL) [0-9]" | sort -u |
          sed -E 's/^(PASS|FAIL) ([0-9:]+).*out (PASS|FAIL)[^|]*max-bound-ratio=([0-9.e+-]+).*/\2 \3 \4/' |
          sed "s/^/$seed $bin /" | tee -a "$out/out_ratios.txt"
      done
    done
    for bin in moegemv_c2f8caf moegemv; do
      awk -v b=$bin '$2 == b { n++; if ($4 == "FAIL") f++; if ($5 > 0.9) h++ }
        END { printf "%s: out over the bound in %d of %d op checks; ratio > 0.9 in %d\n", b, f, n, h }' \
        "$out/out_ratios.txt"
    done
    ;;
  2)  # gu_tmajor=1: routed gate_up CTAs tile-major at M > 1 (pairs of one expert read its rows
      # together, so the repeats can hit L2). Same inputs per seed: the check summaries of the
      # two orders must be identical (each CTA computes the same sums in the same order).
    for tune in "" gu_tmajor=1; do
      MOEGEMV_SEED=7 MOEGEMV_CACHE_DIR=/tmp/cache_c$tune MOEGEMV_TUNE=$tune timeout 150 .gpubin/moegemv check \
        --shape 7168:2048:2048:8 --shape 5120:1536:1536:8 --shape 2048:512:512:10 \
        --m 1,3,16 --e 16 --replays 2 > "$out/check_${tune:-default}.log" 2>&1
      echo "== check ${tune:-default} rc=$? (1 is also the known act/sact elements)"
      tools/check_summary.sh "$out/check_${tune:-default}.log"
    done
    if diff <(grep -aE "^(PASS|FAIL) [0-9]" "$out/check_default.log" | sed 's/seed=[0-9a-fx]*//') \
            <(grep -aE "^(PASS|FAIL) [0-9]" "$out/check_gu_tmajor=1.log" | sed 's/seed=[0-9a-fx]*//') > /dev/null
    then echo "== check summaries identical"; else echo "== check summaries DIFFER"; fi
    VARIANTS="n: t:gu_tmajor=1 t:gu_tmajor=1 n:" MODELS=deepseek-v3,glm-4.5,qwen3-next MS=1,8,16 \
      ROWS=" gate_up |pair_pdl|ceiling" tools/gpu_ab.sh
    ;;
  3)  # gu_tmajor=2 (DIAGNOSTIC: =1's code and SASS, the order never taken) against =1 and the
      # default: tells run 2's M=1 gain (ptxas's schedule) from the order's own effect at M > 1.
    VARIANTS="n: t1:gu_tmajor=1 t2:gu_tmajor=2 t2:gu_tmajor=2 t1:gu_tmajor=1 n:" \
      MODELS=deepseek-v3,glm-4.5,qwen3-next,llama4-maverick MS=1,2,4,8,16 \
      ROWS=" gate_up |pair_pdl|ceiling" tools/gpu_ab.sh
    ;;
  4)  # gu_pipe=3 (3 steps in flight: fits 126 registers since v31) and gu_tmajor=2's schedule, alone
      # and together, on the split tile's shapes
    VARIANTS="n: p3:gu_pipe=3 t2:gu_tmajor=2 pt:gu_pipe=3,gu_tmajor=2 pt:gu_pipe=3,gu_tmajor=2 t2:gu_tmajor=2 p3:gu_pipe=3 n:" \
      MODELS=deepseek-v3,glm-4.5 MS=1,2,4,16 ROWS=" gate_up |pair_pdl|ceiling" tools/gpu_ab.sh
    ;;
  5)  # gu_fence=1 (the split tile's slot-0 refill pinned before slot 1's work: weak loads and a
      # warp barrier) against the lucky schedules. Needs .gpubin/moegemv_head: the CLI of commit
      # 11e78a7 (before the fence), built beside this one.
    for tune in "" gu_fence=1; do
      MOEGEMV_SEED=9 MOEGEMV_CACHE_DIR=/tmp/cache_f$tune MOEGEMV_TUNE=$tune timeout 150 .gpubin/moegemv check \
        --shape 7168:2048:2048:8 --shape 5120:1536:1536:8 --m 1,3,16 --e 16 --replays 2 \
        2>&1 | grep -aE "^(PASS|FAIL) [0-9]" | sed 's/seed=[0-9a-fx]*//' > "$out/check_f${tune:+1}.txt"
      echo "== check ${tune:-default}: $(wc -l < "$out/check_f${tune:+1}.txt") op checks"
    done
    cmp -s "$out/check_f.txt" "$out/check_f1.txt" && echo "== check summaries identical" ||
      echo "== check summaries DIFFER"
    grep -aoE "out (PASS|FAIL)[^|]*" "$out/check_f.txt" | awk '{print $1, $2}' | sort | uniq -c
    VARIANTS="o@moegemv_head: n: f:gu_fence=1 t@moegemv_head:gu_tmajor=2 t@moegemv_head:gu_tmajor=2 f:gu_fence=1 n: o@moegemv_head:" \
      MODELS=deepseek-v3,glm-4.5 MS=1,2,4,16 ROWS=" gate_up |pair_pdl|ceiling" tools/gpu_ab.sh
    ;;
  6)  # Nsight Compute on DeepSeek-V3's gate_up at M=1: the default against gu_tmajor=2 (the same
      # loop, another ptxas schedule, 3-5% faster in runs 3-5): what differs in their stalls
    KERNELS=gate_up tools/gpu_profile.sh deepseek-v3 1 n
    KERNELS=gate_up MOEGEMV_TUNE=gu_tmajor=2 MOEGEMV_CACHE_DIR=/tmp/cache_p_t2 tools/gpu_profile.sh deepseek-v3 1 t2
    ;;
  7)  # DRAM bytes per kernel (Nsight Compute, one launch each, caches flushed before it): do the
      # repeated experts (gate_up, pair-major) and the shared expert read once per token (down,
      # token-major units) come from DRAM again, or from L2?
    ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
    metrics='dram__bytes_read.sum,lts__t_bytes.sum,gpu__time_duration.sum'
    for run in deepseek-v3:1 deepseek-v3:16 glm-4.5:16 llama4-maverick:4 llama4-maverick:16; do
      model=${run%%:*}; m=${run#*:}
      for kernel in gate_up down_combine; do
        MOEGEMV_CACHE_DIR=/tmp/cache_ncu timeout 120 "$ncu" --graph-profiling node --metrics "$metrics" \
          -k regex:"moegemv_$kernel" -c 1 .gpubin/moegemv bench --model $model --m $m --batches 1 \
          --replays 1 > "$out/ncu_bytes_${model}_m${m}_$kernel.txt" 2>&1
        echo "$model M=$m $kernel rc=$? $(grep -E 'dram__bytes_read.sum|lts__t_bytes.sum|gpu__time_duration' \
          "$out/ncu_bytes_${model}_m${m}_$kernel.txt" | awk '{printf "%s %s %s  ", $1, $(NF-1), $NF}')"
      done
    done
    ;;
  8)  # v34 gu_group=2: a repeated expert's pairs computed once (gate_up_group.cuh). E=16 makes
      # groups large (M=31: up to 31 members, 4 passes of 8 columns); M=33 is past the 256-pair
      # scan (per-pair CTAs).
    for tune in "" gu_group=2; do
      MOEGEMV_SEED=11 MOEGEMV_CACHE_DIR=/tmp/cache_g$tune MOEGEMV_TUNE=$tune timeout 200 .gpubin/moegemv check \
        --shape 7168:2048:2048:8 --shape 5120:1536:1536:8 --m 1,2,3,16,31,33 --e 16 --replays 2 \
        > "$out/check_g${tune:+2}.log" 2>&1
      echo "== check ${tune:-default} rc=$? (1 is also the known act/sact elements)"
      tools/check_summary.sh "$out/check_g${tune:+2}.log"
    done
    VARIANTS="n: g:gu_group=2 g:gu_group=2 n:" MODELS=deepseek-v3,glm-4.5 MS=1,2,4,8,16 \
      ROWS=" gate_up |pair_pdl|ceiling" tools/gpu_ab.sh
    ;;
  9)  # closing run: the new default (v34 with gu_group=8 on the split-tile shapes) against session
      # 10's build (.gpubin/moegemv_head, commit 11e78a7): checks, A/B, the [gpu] tests
    MOEGEMV_CACHE_DIR=/tmp/cache_final timeout 150 .gpubin/moegemv check --shape 7168:2048:2048:8 \
      --shape 5120:1536:1536:8 --m 1,8,16,31 --e 16 --replays 2 > "$out/check_final.log" 2>&1
    echo "== check (split shapes) rc=$? (1 is also the known act/sact elements)"
    tools/check_summary.sh "$out/check_final.log"
    MOEGEMV_CACHE_DIR=/tmp/cache_final timeout 100 .gpubin/moegemv check --shape 2048:512:512:10 \
      --shape 5120:8192:8192:1 --m 1,16 --e 16 --replays 1 > "$out/check_final_classic.log" 2>&1
    echo "== check (classic shapes) rc=$?"
    tools/check_summary.sh "$out/check_final_classic.log"
    VARIANTS="o@moegemv_head: n: n: o@moegemv_head:" MODELS=deepseek-v3,glm-4.5 MS=1,2,4,8,16 \
      ROWS=" gate_up |pair_pdl|ceiling" tools/gpu_ab.sh
    MOEGEMV_CACHE_DIR=/tmp/cache_final timeout 90 .gpubin/test_runtime "[gpu]" > "$out/test_runtime.log" 2>&1
    echo "== [gpu] tests rc=$?"; tail -4 "$out/test_runtime.log"
    ;;
  10) # v34 on the classic tile's shapes: gu_group=8 (the group path as a call there) on Qwen3-Next
      # and Llama-4
    MOEGEMV_CACHE_DIR=/tmp/cache_g8 MOEGEMV_TUNE=gu_group=8 timeout 100 .gpubin/moegemv check \
      --shape 2048:512:512:10 --shape 5120:8192:8192:1 --m 8,16,25 --e 16 --replays 1 > "$out/check_g8.log" 2>&1
    echo "== check gu_group=8 rc=$? (1 is also the known act/sact elements)"
    tools/check_summary.sh "$out/check_g8.log"
    VARIANTS="n: g:gu_group=8 g:gu_group=8 n:" MODELS=qwen3-next,llama4-maverick MS=1,8,16 \
      ROWS=" gate_up |pair_pdl|ceiling" tools/gpu_ab.sh
    ;;
esac
