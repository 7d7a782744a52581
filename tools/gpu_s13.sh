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
  2)  # v37 (the streaming down: a compile-time step count where every warp has the same, so the
      # step loop unrolls whole and the scales stay in registers instead of being parked in shared
      # memory; token and tile counted, not divided). Its sums are in the same order, so its check
      # log must equal the old build's (same seed; timing and cache lines dropped). Then o x x o
      # against session 12's build (.gpubin/moegemv_s12), and the [gpu] tests.
    for b in moegemv_s12 moegemv; do
      MOEGEMV_SEED=21 MOEGEMV_CACHE_DIR=/tmp/cache_chk_$b timeout 200 .gpubin/$b check \
        --shape 7168:2048:2048:8 --shape 5120:1536:1536:8 --shape 5120:8192:8192:1 --shape 2048:512:512:10 \
        --m 1,3,16 --e 16,256 --replays 2 > "$out/check_$b.log" 2>&1
      echo "check $b: rc=$?"
      grep -av "took\|PASS capture" "$out/check_$b.log" > "$out/check_$b.cmp"
    done
    cmp "$out/check_moegemv_s12.cmp" "$out/check_moegemv.cmp" && echo "check logs identical"
    check_summary() { for f; do echo "$f: $(grep -ac '^PASS' "$out/$f.log") PASS, $(grep -ac '^FAIL' "$out/$f.log") FAIL, out FAIL $(grep -ac 'out FAIL' "$out/$f.log")"; done; }
    check_summary check_moegemv
    VARIANTS="o@moegemv_s12: x: x2: o2@moegemv_s12:" MODELS=deepseek-v3,glm-4.5,llama4-maverick,qwen3-next \
      MS=1,4,8 ROWS=" down |pair|ceiling" tools/gpu_ab.sh | tee "$out/run2.txt"
    MOEGEMV_CACHE_DIR=/tmp/cache_chk_moegemv timeout 300 .gpubin/test_runtime "[gpu]" > "$out/tests.log" 2>&1
    echo "[gpu] tests: rc=$?"; grep -aE "^test cases|FAILED" "$out/tests.log" | head -8
    ;;
  3)  # v38 gu_tiles=2 (two tiles per routed gate_up CTA, split tile): its sums are the default's
      # in the same order, so its check log must equal the default's (same seed); then n t t n.
    for tune in "" gu_tiles=2; do
      MOEGEMV_SEED=31 MOEGEMV_CACHE_DIR=/tmp/cache_chk3$tune MOEGEMV_TUNE=$tune timeout 200 .gpubin/moegemv check \
        --shape 7168:2048:2048:8 --shape 5120:1536:1536:8 --m 1,3,8,9,16 --e 16,256 --replays 2 \
        > "$out/check3_${tune:-default}.log" 2>&1
      echo "check ${tune:-default}: rc=$?"
      grep -av "took\|PASS capture" "$out/check3_${tune:-default}.log" > "$out/check3_${tune:-default}.cmp"
    done
    cmp "$out/check3_default.cmp" "$out/check3_gu_tiles=2.cmp" && echo "check logs identical"
    cp "$out/check3_gu_tiles=2.log" "$out/check3_tiles2.log"
    VARIANTS="n: t:gu_tiles=2 t2:gu_tiles=2 n2:" MODELS=deepseek-v3,glm-4.5 MS=1,2,4,8,16 \
      ROWS=" gate_up |pair|ceiling" tools/gpu_ab.sh | tee "$out/run3.txt"
    ;;
  4)  # v38: gate_up's two-tile kernel only from M = group on (default on DeepSeek-V3, GLM-4.5).
      # The sums are the one-tile kernel's, so the check log must equal v37's (same seed); then
      # o x x o against v37's build (.gpubin/moegemv_v37; M = 4 runs the same kernel in both).
    for b in moegemv_v37 moegemv; do
      MOEGEMV_SEED=41 MOEGEMV_CACHE_DIR=/tmp/cache_chk4_$b timeout 250 .gpubin/$b check \
        --shape 7168:2048:2048:8 --shape 5120:1536:1536:8 --m 1,3,8,9,12,16 --e 16,256 --replays 2 \
        > "$out/check4_$b.log" 2>&1
      echo "check $b: rc=$?"
      grep -av "took\|PASS capture" "$out/check4_$b.log" > "$out/check4_$b.cmp"
    done
    cmp "$out/check4_moegemv_v37.cmp" "$out/check4_moegemv.cmp" && echo "check logs identical"
    echo "out FAIL: $(grep -ac 'out FAIL' "$out/check4_moegemv.log"), nan>0: $(grep -ac 'nan=[1-9]' "$out/check4_moegemv.log"), unwritten>0: $(grep -ac 'unwritten=[1-9]' "$out/check4_moegemv.log")"
    MOEGEMV_CACHE_DIR=/tmp/cache_chk4_moegemv timeout 300 .gpubin/test_runtime "[gpu]" > "$out/tests4.log" 2>&1
    echo "[gpu] tests: rc=$?"; grep -aE "^test cases" "$out/tests4.log"
    VARIANTS="o@moegemv_v37: x: x2: o2@moegemv_v37:" MODELS=deepseek-v3,glm-4.5 MS=4,8,12,16 \
      ROWS=" gate_up |pair|ceiling" tools/gpu_ab.sh | tee "$out/run4.txt"
    ;;
  5)  # v39 candidate (.gpubin/moegemv_acc2: the streaming down with two accumulators wherever
      # its step count is fixed): check, then n a a n on the down; and M=8 with and without the
      # two-tile gate_up kernel (gu_tiles=1), 9 batches.
    MOEGEMV_SEED=51 MOEGEMV_CACHE_DIR=/tmp/cache_chk5 timeout 250 .gpubin/moegemv_acc2 check \
      --shape 7168:2048:2048:8 --shape 5120:1536:1536:8 --shape 5120:8192:8192:1 --shape 2048:512:512:10 \
      --m 1,3,16 --e 16,256 --replays 2 > "$out/check5_acc2.log" 2>&1
    echo "check acc2: rc=$? out FAIL: $(grep -ac 'out FAIL' "$out/check5_acc2.log"), out PASS: $(grep -ac 'out PASS' "$out/check5_acc2.log"), nan>0: $(grep -ac 'nan=[1-9]' "$out/check5_acc2.log"), unwritten>0: $(grep -ac 'unwritten=[1-9]' "$out/check5_acc2.log")"
    VARIANTS="n: a@moegemv_acc2: a2@moegemv_acc2: n2:" MODELS=deepseek-v3,glm-4.5,llama4-maverick MS=1,4,8 \
      ROWS=" down |pair_pdl|ceiling" tools/gpu_ab.sh | tee "$out/run5.txt"
    VARIANTS="n: u:gu_tiles=1 u2:gu_tiles=1 n2:" MODELS=deepseek-v3,glm-4.5 MS=8 BATCHES=9 \
      ROWS=" gate_up |pair|ceiling" tools/gpu_ab.sh | tee "$out/run5_m8.txt"
    ;;
  6)  # The closing bench of the session's defaults (v37 down, v38 gate_up two-tile kernel from M =
      # 8): every preset, M = 1, 2, 4, 8, 16, JSON for PERF.md's table and the plot.
    MOEGEMV_CACHE_DIR=/tmp/cache_d timeout 300 .gpubin/moegemv bench --json "$out/s13_final.json" \
      > "$out/s13_final.log" 2>&1
    echo "bench: rc=$?"; tail -32 "$out/s13_final.log"
    ;;
  7)  # A lead for the next session: grouping (and with it the two-tile kernel) from M = 4
      # (gu_group=4) against the default 8, at M = 4 and 6 (n g g n, 3 batches: little device
      # time was left).
    VARIANTS="n: g:gu_group=4 g2:gu_group=4 n2:" MODELS=deepseek-v3,glm-4.5 MS=4,6 BATCHES=3 \
      ROWS=" gate_up |pair_pdl|ceiling" tools/gpu_ab.sh | tee "$out/run7.txt"
    ;;
esac
