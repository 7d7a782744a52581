#!/usr/bin/env bash
# Session 11's device runs (records). Build here first (`make gpubin`), carry [".gpubin"]:
#   tools/gpu_s11.sh 1
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
esac
