#!/usr/bin/env bash
# Session 12's device runs (records). Build here first (`make gpubin`), carry [".gpubin"]:
#   tools/gpu_s12.sh 1
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
all=deepseek-v3,glm-4.5,qwen3-next,llama4-maverick
# One line per check log in $out: its PASS / FAIL op checks and its `out` verdicts.
check_summary() {
  for f; do
    echo "$f: $(grep -ac '^PASS' "$out/$f.log") PASS, $(grep -ac '^FAIL' "$out/$f.log") FAIL," \
      "out FAIL $(grep -ac 'out FAIL' "$out/$f.log"), out PASS $(grep -ac 'out PASS' "$out/$f.log")"
  done
}
case "${1:?run number}" in
  1)  # Does the classic down (tile-major CTAs: one expert's rows for several tokens at about the
      # same time, so repeats can come from L2) beat the streaming down (token-major units) at
      # M = 8, 16? Mirrored s c c s, own caches.
    VARIANTS="s: c:dc_stream=0 c2:dc_stream=0 s2:" MODELS=$all MS=${MS:-1,4,8,16} \
      ROWS=" down |pair|ceiling" tools/gpu_ab.sh | tee "$out/run1.txt"
    ;;
  2)  # v35, the grouped down (down_group.cuh): correct (check at M = 2, 3 with dc_group=2, and
      # at 8, 16 by default; E = 16 for many repeats, 256 as routed), then n g g n against
      # dc_group=0 at M = 2..16 (g: from M = 2 on, so M = 2, 4 show where it pays).
      # (As run, its first check's --m was mangled by the shell: that check did not run.)
    for tune in dc_group=2 ""; do
      ms=8,16; [ -n "$tune" ] && ms=2,3
      MOEGEMV_SEED=12 MOEGEMV_CACHE_DIR=/tmp/cache_chk$tune MOEGEMV_TUNE=$tune timeout 200 .gpubin/moegemv check \
        --shape 7168:2048:2048:8 --shape 5120:1536:1536:8 --shape 2048:512:512:10 --shape 2048:1408:5632:4 \
        --m $ms --e 16,256 --replays 2 > "$out/check_${tune:-default}.log" 2>&1
      echo "check ${tune:-default}: rc=$? $(grep -ac '^PASS' "$out/check_${tune:-default}.log") PASS," \
        "$(grep -ac '^FAIL' "$out/check_${tune:-default}.log") FAIL, out FAIL $(grep -ac 'out FAIL' "$out/check_${tune:-default}.log")"
    done
    VARIANTS="n:dc_group=0 g:dc_group=2 g2:dc_group=2 n2:dc_group=0" MODELS=deepseek-v3,glm-4.5,qwen3-next \
      MS=${MS:-2,4,8,16} ROWS=" down |pair_pdl|ceiling" tools/gpu_ab.sh | tee "$out/run2.txt"
    ;;
  3)  # v35 after run 2 (router weights and alpha2 staged with the item table; default from M = 16
      # where K >= 8 and I >= 1024): checks (dc_group=2 at M = 2, 3; the default at 16), the [gpu]
      # tests, then n g g n against dc_group=0 at M = 8, 12, 16 (g: from M = 8 on).
    MOEGEMV_SEED=13 MOEGEMV_CACHE_DIR=/tmp/cache_g2 MOEGEMV_TUNE=dc_group=2 timeout 200 .gpubin/moegemv check \
      --shape 7168:2048:2048:8 --shape 5120:1536:1536:8 --shape 2048:512:512:10 --shape 2048:1408:5632:4 \
      --m 2,3 --e 16,256 --replays 2 > "$out/check_g2.log" 2>&1
    MOEGEMV_SEED=13 MOEGEMV_CACHE_DIR=/tmp/cache_d timeout 200 .gpubin/moegemv check \
      --shape 7168:2048:2048:8 --shape 5120:1536:1536:8 --m 16 --e 16,256 --replays 2 > "$out/check_default.log" 2>&1
    check_summary check_g2 check_default
    MOEGEMV_CACHE_DIR=/tmp/cache_d timeout 300 .gpubin/test_runtime "[gpu]" > "$out/tests.log" 2>&1
    echo "[gpu] tests: rc=$?"; grep -aE "^test cases|FAILED|^/.*cpp:[0-9]+: FAILED" "$out/tests.log" | head -8
    VARIANTS="n:dc_group=0 g:dc_group=8 g2:dc_group=8 n2:dc_group=0" MODELS=deepseek-v3,glm-4.5,qwen3-next \
      MS=${MS:-8,12,16} ROWS=" down |pair|ceiling" tools/gpu_ab.sh | tee "$out/run3.txt"
    ;;
  4)  # Nsight Compute on the grouped down: Qwen3-Next M = 16 (dc_group=2; 2.3x slower than the
      # token-major kernel in runs 2-3) and DeepSeek-V3 M = 16 (default), and the token-major
      # DeepSeek-V3 down at M = 16 for comparison.
    MOEGEMV_TUNE=dc_group=2 KERNELS="down_combine.*_group" tools/gpu_profile.sh qwen3-next 16 q16g
    KERNELS="down_combine.*_group" tools/gpu_profile.sh deepseek-v3 16 ds16g
    [ -n "${SKIP_N:-}" ] || MOEGEMV_TUNE=dc_group=0 MOEGEMV_CACHE_DIR=/tmp/cache_n KERNELS="down_combine" tools/gpu_profile.sh deepseek-v3 16 ds16n
    ;;
  5)  # v35b: one producer lane per ring (run 4: the in-order producer made rings wait for each
      # other). n g g n against dc_group=0, g from M = 2 on; then the [gpu] tests.
    VARIANTS="n:dc_group=0 g:dc_group=2 g2:dc_group=2 n2:dc_group=0" MODELS=deepseek-v3,glm-4.5,qwen3-next \
      MS=${MS:-2,4,8,12,16} ROWS=" down |pair_pdl|ceiling" tools/gpu_ab.sh | tee "$out/run5.txt"
    MOEGEMV_CACHE_DIR=/tmp/cache_d timeout 300 .gpubin/test_runtime "[gpu]" > "$out/tests.log" 2>&1
    echo "[gpu] tests: rc=$?"; grep -aE "^test cases|^/.*cpp:[0-9]+: FAILED" "$out/tests.log" | head -8
    ;;
  6)  # v35c: the shared expert's items first (read together by all rings at the start); the
      # producer in ring order (o) or one lane per ring (l, dc_lanes=1), against the token-major
      # down (n): n o l l o n at M = 8, 12, 16; Qwen3-Next (lanes by default there) n g g n.
    VARIANTS="n:dc_group=0 o:dc_group=8 l:dc_group=8,dc_lanes=1 l2:dc_group=8,dc_lanes=1 o2:dc_group=8 n2:dc_group=0" \
      MODELS=deepseek-v3,glm-4.5 MS=${MS:-8,12,16} ROWS=" down |pair_pdl|ceiling" tools/gpu_ab.sh | tee "$out/run6.txt"
    VARIANTS="n:dc_group=0 g:dc_group=8 g2:dc_group=8 n2:dc_group=0" \
      MODELS=qwen3-next MS=${MS:-8,12,16} ROWS=" down |pair_pdl|ceiling" tools/gpu_ab.sh | tee -a "$out/run6.txt"
    ;;
  7)  # Closing run of v35 (final defaults: DeepSeek-V3 from M = 16 in ring order, GLM-4.5 from
      # M = 12 with a producer lane per ring; shared items last): checks, [gpu] tests, n d d n
      # against dc_group=0 at M = 12, 16, then the full default bench (JSON) for PERF.md's table.
    MOEGEMV_SEED=17 MOEGEMV_CACHE_DIR=/tmp/cache_d timeout 200 .gpubin/moegemv check \
      --shape 7168:2048:2048:8 --shape 5120:1536:1536:8 --m 12,16 --e 16,256 --replays 2 > "$out/check_default.log" 2>&1
    MOEGEMV_SEED=17 MOEGEMV_CACHE_DIR=/tmp/cache_l MOEGEMV_TUNE=dc_group=2,dc_lanes=1 timeout 200 .gpubin/moegemv check \
      --shape 7168:2048:2048:8 --shape 2048:512:512:10 --m 3,9 --e 16 --replays 2 > "$out/check_lanes.log" 2>&1
    check_summary check_default check_lanes
    MOEGEMV_CACHE_DIR=/tmp/cache_d timeout 300 .gpubin/test_runtime "[gpu]" > "$out/tests.log" 2>&1
    echo "[gpu] tests: rc=$?"; grep -aE "^test cases" "$out/tests.log"
    VARIANTS="n:dc_group=0 d: d2: n2:dc_group=0" MODELS=deepseek-v3,glm-4.5 MS=12,16 \
      ROWS=" down |pair|ceiling" tools/gpu_ab.sh | tee "$out/run7.txt"
    MOEGEMV_CACHE_DIR=/tmp/cache_d timeout 250 .gpubin/moegemv bench --json "$out/s12_final.json" > "$out/s12_final.log" 2>&1
    echo "bench rc=$?"; grep -aE "pair_pdl|ceiling" "$out/s12_final.log" | head -30
    ;;
  8)  # With the grouped down, the pair with PDL lost to the pair without at M = 16 (run 7: 29 us on
      # DeepSeek-V3, 16 on GLM-4.5). Does launching the next kernel only at the down's end
      # (dc_launch=2) remove that? d e e d at M = 12, 16.
    VARIANTS="d: e:dc_launch=2 e2:dc_launch=2 d2:" MODELS=deepseek-v3,glm-4.5 MS=12,16 \
      ROWS="pair|ceiling" tools/gpu_ab.sh | tee "$out/run8.txt"
    ;;
  9)  # v36: the grouped down's partial sums handed over per ring and y kept as bf16 (no CAS-loop
      # adds; DeepSeek-V3 fits 8 rings, 16 consumer warps). Needs .gpubin/moegemv_v35 (commit
      # 0c3b1aa's build: v35 as closed in run 7, the docs commit). Checks, [gpu] tests, then
      # n a b b a n (a: v35, b: v36; both grouped from M = 8) at M = 8, 12, 16.
    MOEGEMV_SEED=19 MOEGEMV_CACHE_DIR=/tmp/cache_g2 MOEGEMV_TUNE=dc_group=2 timeout 200 .gpubin/moegemv check \
      --shape 7168:2048:2048:8 --shape 5120:1536:1536:8 --shape 2048:512:512:10 --shape 2048:1408:5632:4 \
      --m 2,3 --e 16,256 --replays 2 > "$out/check_g2.log" 2>&1
    MOEGEMV_SEED=19 MOEGEMV_CACHE_DIR=/tmp/cache_d timeout 200 .gpubin/moegemv check \
      --shape 7168:2048:2048:8 --shape 5120:1536:1536:8 --m 12,16 --e 16,256 --replays 2 > "$out/check_default.log" 2>&1
    check_summary check_g2 check_default
    MOEGEMV_CACHE_DIR=/tmp/cache_d timeout 300 .gpubin/test_runtime "[gpu]" > "$out/tests.log" 2>&1
    echo "[gpu] tests: rc=$?"; grep -aE "^test cases" "$out/tests.log"
    VARIANTS="n:dc_group=0 a@moegemv_v35:dc_group=8 b:dc_group=8 b2:dc_group=8 a2@moegemv_v35:dc_group=8 n2:dc_group=0" \
      MODELS=deepseek-v3,glm-4.5 MS=8,12,16 ROWS=" down |pair_pdl|ceiling" tools/gpu_ab.sh | tee "$out/run9.txt"
    VARIANTS="n:dc_group=0 b:dc_group=8 b2:dc_group=8 n2:dc_group=0" \
      MODELS=qwen3-next MS=16 ROWS=" down |ceiling" tools/gpu_ab.sh | tee -a "$out/run9.txt"
    ;;
  10) # Run 9: v36 helped GLM-4.5's pair with PDL far more than its down alone (-10% vs -14%
      # down... at M=16; -6.5% at M=8 with a -3.5% down), not DeepSeek-V3's (8 rings, 228 KB of
      # shared memory). Guess: a smaller grouped CTA lets the next layer's gate_up CTAs share its
      # SM under PDL. DeepSeek-V3 with 7 rings (203 KB): n r8 r7 r7 r8 n at M = 12, 16 (all from
      # M = 12 on); GLM-4.5 n g g n at M = 8.
    VARIANTS="n:dc_group=0 r8:dc_group=12 r7:dc_group=12,dc_rings=7 r7b:dc_group=12,dc_rings=7 r8b:dc_group=12 n2:dc_group=0" \
      MODELS=deepseek-v3 MS=12,16 ROWS=" down |pair|ceiling" tools/gpu_ab.sh | tee "$out/run10.txt"
    VARIANTS="n:dc_group=0 g:dc_group=8 g2:dc_group=8 n2:dc_group=0" \
      MODELS=glm-4.5 MS=8 ROWS=" down |pair|ceiling" tools/gpu_ab.sh | tee -a "$out/run10.txt"
    ;;
  11) # Closing bench of the session (v36; grouped down from M = 16 on DeepSeek-V3, from M = 8 on
      # GLM-4.5): the full default bench (JSON) for PERF.md's table and the plot.
    MOEGEMV_CACHE_DIR=/tmp/cache_d timeout 300 .gpubin/moegemv bench --json "$out/s12_close.json" > "$out/s12_close.log" 2>&1
    echo "bench rc=$?"; grep -aE "pair_pdl" "$out/s12_close.log" | head -30
    ;;
  12) # v36 below the defaults: GLM-4.5's pair with PDL gained more than its down alone (runs 9-10);
      # does that hold at M = 2, 4 (v35 there: down +10..+13%)? n g g n with g from M = 2.
    VARIANTS="n:dc_group=0 g:dc_group=2 g2:dc_group=2 n2:dc_group=0" MODELS=glm-4.5,deepseek-v3 MS=2,4 \
      ROWS=" down |pair|ceiling" tools/gpu_ab.sh | tee "$out/run12.txt"
    ;;
  13) # The final build: [gpu] tests, and GLM-4.5 at its new default threshold (M = 8) checked.
    MOEGEMV_SEED=23 MOEGEMV_CACHE_DIR=/tmp/cache_d timeout 120 .gpubin/moegemv check \
      --shape 5120:1536:1536:8 --shape 7168:2048:2048:8 --m 8,16 --e 16,256 --replays 2 > "$out/check_final.log" 2>&1
    check_summary check_final
    MOEGEMV_CACHE_DIR=/tmp/cache_d timeout 200 .gpubin/test_runtime "[gpu]" > "$out/tests.log" 2>&1
    echo "[gpu] tests: rc=$?"; grep -aE "^test cases" "$out/tests.log"
    ;;
esac
