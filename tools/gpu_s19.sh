#!/usr/bin/env bash
# Session 19's device runs. Build here (`make gpubin`), carry [".gpubin"]; each run fits one
# 10-minute call. The card that comes is printed first: compare numbers only within a run.
#   1  the [gpu] tests, the closing bench of the defaults (v45; --seed 1, JSON), then v45 against
#      the build before it (.gpubin/moegemv_old, o n n o) at M = 1 on every preset
#   2  Nsight Compute at M = 1 on every preset, gate_up and down_combine (tools/gpu_profile.sh):
#      the sections and the per-instruction stall samples of the defaults
#   3  an A/B of MOEGEMV_TUNE variants against the defaults at M = 1, 4 (VARIANTS as gpu_ab.sh)
#   5  v46 against v45 (.gpubin/moegemv_v45, built from the commit before v46): check logs with
#      one seed (same bits expected), the [gpu] tests, o n n o at M = 1, 4 (every preset) and 16;
#      then GLM-4.5's down with one warp per segment (dc_chunks=1; measured only on an H100 before)
#   6  on an H200: the build against v45 (M = 1, 4), GLM-4.5's and Llama-4's ring back
#      (dc_sahead=2) against v47's registers, the closing bench, the knock-outs at M=1; on an H100:
#      the build against v45 at M = 2, 8, the closing bench. (Call 7 ran its first form, on an
#      H100: the dc_sahead=1 A/B that made v47, v46 against v45 at M = 2, 8, v46's bench.)
#   7  v47 (GLM-4.5 and Llama-4 down scales in registers): check logs against v45's with one seed
#      on those two shapes (same bits expected), the [gpu] tests
#   8  (next session) dc_safter=1: check logs against the default's with one seed, then n s s n at
#      M = 1, 4 on every preset unless its check has more FAIL lines than the default's
#   9  (next session, first call) run 8, then run 6
#   4  run 2's profiles of DeepSeek-V3 and GLM-4.5 again, packed in one tarball (run 2's stall
#      samples did not come back: too many files), then the knock-outs of the decode (bit 1) and
#      the scale multiply (bit 2) in both kernels against the defaults, every preset, M = 1, 4
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
card=$(nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader | head -1)
echo "card: $card" | tee "$out/card.txt"
check_builds() {  # v45's binary against this build: check logs with one seed, then the [gpu] tests.
  # $1: the output files' tag, $2: check's time limit, the rest: check's --shape arguments.
  local tag=$1 limit=$2
  shift 2
  for b in moegemv_v45 moegemv; do
    MOEGEMV_SEED=61 MOEGEMV_CACHE_DIR=/tmp/cache_chk${tag}_$b timeout "$limit" .gpubin/$b check "$@" \
      --m 1,3,16 --e 16 --replays 1 > "$out/check${tag}_$b.log" 2>&1
    echo "check $b rc=$? (1: SPEC 8's known over-bounds, #3)"
  done
  diff "$out/check${tag}_moegemv_v45.log" "$out/check${tag}_moegemv.log" > "$out/check${tag}.diff"
  echo "check logs: $(wc -l < "$out/check${tag}.diff") diff lines"
  tools/check_summary.sh "$out/check${tag}_moegemv.log" | tail -5
  MOEGEMV_CACHE_DIR=/tmp/cache_tests${tag} timeout 150 .gpubin/test_runtime "[gpu]" > "$out/tests${tag}.log" 2>&1
  echo "[gpu] tests: rc=$?"; grep -aE "^test cases" "$out/tests${tag}.log"
}
case "${1:?run number}" in
  1)
    MOEGEMV_CACHE_DIR=/tmp/cache_tests timeout 200 .gpubin/test_runtime "[gpu]" > "$out/tests.log" 2>&1
    echo "[gpu] tests: rc=$?"; grep -aE "^test cases" "$out/tests.log"
    MOEGEMV_CACHE_DIR=/tmp/cache_final timeout 300 .gpubin/moegemv bench --seed 1 \
      --json "$out/s19_final.json" > "$out/s19_final.log" 2>&1
    echo "bench: rc=$?"
    VARIANTS="o@moegemv_old: n: n2: o2@moegemv_old:" MODELS=deepseek-v3,glm-4.5,llama4-maverick,qwen3-next \
      MS=1 ROWS=" gate_up | down |pair_pdl|ceiling" timeout 240 tools/gpu_ab.sh | tee "$out/v45_ab.txt"
    grep -a "M=1 \|PDL saving\|ceiling" "$out/s19_final.log" | head -40
    ;;
  2)
    for model in deepseek-v3 glm-4.5 llama4-maverick qwen3-next; do
      OUT=$out timeout 140 tools/gpu_profile.sh "$model" 1
    done
    ;;
  4)
    mkdir -p /tmp/prof
    for model in deepseek-v3 glm-4.5; do OUT=/tmp/prof timeout 140 tools/gpu_profile.sh "$model" 1; done
    tar -C /tmp/prof -czf "$out/prof.tgz" .
    VARIANTS="n: k2:gu_knock=2,dc_knock=2 k1:gu_knock=1,dc_knock=1 k12:gu_knock=1,dc_knock=1 k22:gu_knock=2,dc_knock=2 n2:" \
      MODELS=deepseek-v3,glm-4.5,llama4-maverick,qwen3-next MS=1,4 ROWS=" gate_up | down |pair_pdl|ceiling" \
      tools/gpu_ab.sh | tee "$out/knock.txt"
    ;;
  5)  # v46 (scale u16s joined at use) against v45 (.gpubin/moegemv_v45): same bits, then speed
    check_builds "" 120 --shape 7168:2048:2048:8 --shape 2048:512:512:10 --shape 5120:1536:1536:8 \
      --shape 2048:768:0:8
    VARIANTS="o@moegemv_v45: n: n2: o2@moegemv_v45:" MODELS=deepseek-v3,glm-4.5,llama4-maverick,qwen3-next \
      MS=1,4 ROWS=" gate_up | down |pair_pdl|ceiling" tools/gpu_ab.sh | tee "$out/v46_ab.txt"
    VARIANTS="o@moegemv_v45: n: n2: o2@moegemv_v45:" MODELS=deepseek-v3,glm-4.5,qwen3-next \
      MS=16 ROWS=" down |pair_pdl|ceiling" tools/gpu_ab.sh | tee "$out/v46_ab16.txt"
    VARIANTS="n: c:dc_chunks=1 c2:dc_chunks=1 n2:" MODELS=glm-4.5 MS=1,4 ROWS=" down |pair_pdl|ceiling" \
      tools/gpu_ab.sh | tee "$out/glm_chunks1.txt"
    ;;
  6)  # v46 + v47 where it counts (written for this session's last call, rewritten after v47)
    ab() { VARIANTS="$1" MODELS=$2 MS=$3 ROWS=" gate_up | down |pair_pdl|ceiling" tools/gpu_ab.sh | tee "$out/$4"; }
    case $card in
      *H200*)
        ab "o@moegemv_v45: n: n2: o2@moegemv_v45:" deepseek-v3,glm-4.5,llama4-maverick,qwen3-next 1,4 v47_ab.txt
        ab "n: r:dc_sahead=2 r2:dc_sahead=2 n2:" glm-4.5,llama4-maverick 1,4 sahead2.txt
        MOEGEMV_CACHE_DIR=/tmp/cache_final timeout 200 .gpubin/moegemv bench --seed 1 \
          --json "$out/s19_h200.json" > "$out/s19_h200.log" 2>&1; echo "bench: rc=$?"
        ab "n: k1:gu_knock=1,dc_knock=1 k2:gu_knock=2,dc_knock=2 n2:" deepseek-v3,glm-4.5,llama4-maverick,qwen3-next 1 knock.txt
        ;;
      *)
        ab "o@moegemv_v45: n: n2: o2@moegemv_v45:" deepseek-v3,glm-4.5,llama4-maverick,qwen3-next 2,8 v47_ab28.txt
        MOEGEMV_CACHE_DIR=/tmp/cache_final timeout 200 .gpubin/moegemv bench --seed 1 \
          --json "$out/s19_h100.json" > "$out/s19_h100.log" 2>&1; echo "bench: rc=$?"
        ;;
    esac
    ;;
  7)  # v47's new paths (GLM-4.5 and Llama-4 scales in registers): check logs against v45's, one seed
    check_builds 7 100 --shape 5120:1536:1536:8 --shape 5120:8192:8192:1
    ;;
  8)  # for the next session: dc_safter=1 (not yet run): its check first, timing only if it passes
    shapes="--shape 7168:2048:2048:8 --shape 2048:512:512:10 --shape 5120:1536:1536:8 --shape 5120:8192:8192:1"
    for v in default:: safter:dc_safter=1; do
      name=${v%%:*}; tune=${v#*:}; tune=${tune#:}
      MOEGEMV_SEED=61 MOEGEMV_TUNE="$tune" MOEGEMV_CACHE_DIR=/tmp/cache_chk8_$name timeout 120 \
        .gpubin/moegemv check $shapes --m 1,3,16 --e 16 --replays 1 > "$out/check8_$name.log" 2>&1
      echo "check $name rc=$? (1: SPEC 8's known over-bounds, #3)"; tools/check_summary.sh "$out/check8_$name.log" | tail -4
    done
    # v47's parked register feed (an uneven step split; dc_safter does not apply there)
    MOEGEMV_SEED=61 MOEGEMV_CACHE_DIR=/tmp/cache_chk8_parked timeout 60 .gpubin/moegemv check \
      --shape 3072:1024:1536:6 --m 1,3,16 --e 16 --replays 1 > "$out/check8_parked.log" 2>&1
    echo "check parked rc=$?"; tools/check_summary.sh "$out/check8_parked.log" | tail -3
    fails_s=$(grep -ac "FAIL" "$out/check8_safter.log"); fails_d=$(grep -ac "FAIL" "$out/check8_default.log")
    if [ "$fails_s" -gt "$fails_d" ]; then
      echo "dc_safter=1: $fails_s FAIL lines against the default's $fails_d (same seed): no timing"
    else
      ab() { VARIANTS="$1" MODELS=$2 MS=$3 ROWS=" gate_up | down |pair_pdl|ceiling" tools/gpu_ab.sh | tee "$out/$4"; }
      ab "n: s:dc_safter=1 s2:dc_safter=1 n2:" deepseek-v3,glm-4.5,llama4-maverick,qwen3-next 1,4 safter_ab.txt
    fi
    ;;
  9)  # the next session's first call: 8, then 6 (one cold start for both)
    "$0" 8
    "$0" 6
    ;;
  3)
    VARIANTS=${VARIANTS:?} MODELS=${MODELS:-deepseek-v3,glm-4.5,llama4-maverick,qwen3-next} \
      MS=${MS:-1,4} ROWS=${ROWS:- gate_up | down |pair_pdl|ceiling} tools/gpu_ab.sh | tee "$out/ab.txt"
    ;;
esac
