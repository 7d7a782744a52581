#!/usr/bin/env bash
# Session 14's device runs (records). Build here first (`make gpubin`), carry [".gpubin"]:
#   tools/gpu_s14.sh 1   (runs 1, 2, 3, 4, 4b, 5, 6; each sized for one 10-minute call)
# (Session 14 itself was lent no device: these runs are prepared for the next session.)
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
check_counts() {  # out FAIL / nan / unwritten lines of a check log
  echo "$1: rc=$2 out FAIL $(grep -ac 'out FAIL' "$1") out PASS $(grep -ac 'out PASS' "$1") nan>0 $(grep -ac 'nan=[1-9]' "$1") unwritten>0 $(grep -ac 'unwritten=[1-9]' "$1")"
}
DECODE=gu_decode=3,dc_decode=3
ALL=$DECODE,gu_bindex=1,dc_bindex=1,dc_gcount=1,gu_shx=1  # every session-14 candidate (same bits, sums)
case "${1:?run number}" in
  1)  # The session-14 candidates together (ALL): v40 + v41 (decode=3: two steps of the decode on
      # the FMA pipe as HMUL2s by 1; bit 1: the second lookup's selectors, not a shift: one
      # integer-ALU op per word; bit 2: the scale's bf16 broadcast, not an F2FP pack: 4 per
      # 128-element step, pipe not known) and v42 (bindex=1: B group indices as int, so shared
      # loads take immediate offsets; gate_up's loops only) and v43 (dc_gcount=1: the grouped
      # down's units counted, not divided; M = 16 on DeepSeek-V3, from 8 on GLM-4.5) and v44
      # (gu_shx=1: at M = 1 the shared expert's x staged in shared memory, not read and permuted
      # per step; half of Llama-4's gate_up). Same bits and sums: the check logs with and
      # without must be identical (same seed); the exhaustive
      # decode probe runs every decode form (0..3) over every 16-bit half. Then n a a n on every
      # preset.
    for tune in "" $ALL; do
      name=${tune:+all}; name=${name:-default}
      MOEGEMV_SEED=61 MOEGEMV_TUNE=$tune MOEGEMV_CACHE_DIR=/tmp/cache_chk_$name timeout 200 .gpubin/moegemv check \
        --shape 7168:2048:2048:8 --shape 5120:8192:8192:1 --shape 2048:512:512:10 --m 1,3,16 --e 16,256 --replays 2 \
        > "$out/check_$name.log" 2>&1
      check_counts "$out/check_$name.log" $?
      grep -av "took\|PASS capture" "$out/check_$name.log" > "$out/check_$name.cmp"
    done
    cmp "$out/check_default.cmp" "$out/check_all.cmp" && echo "check logs identical"
    grep -a "decode:" "$out/check_default.log" | head -1
    VARIANTS="n: a:$ALL a2:$ALL n2:" MODELS=deepseek-v3,glm-4.5,llama4-maverick,qwen3-next \
      MS=1,4,16 ROWS=" gate_up | down |pair_pdl|ceiling" tools/gpu_ab.sh | tee "$out/run1.txt"
    ;;
  2)  # Which candidate pays (decode=3 alone, bindex=1 alone), and is the integer ALU pipe what
      # bounds the decode? knock=16 (wrong results) turns its three masks into integer multiplies:
      # the same instruction count, three ALU ops per word fewer (four with decode bit 1). If the
      # kernels speed up by much more than decode=3's, the ALU pipe binds.
    VARIANTS="n: d:$DECODE b:gu_bindex=1,dc_bindex=1 k:gu_knock=16,dc_knock=16,$DECODE n2:" \
      MODELS=deepseek-v3,glm-4.5,llama4-maverick MS=1,4 ROWS=" gate_up | down |ceiling" tools/gpu_ab.sh | tee "$out/run2.txt"
    ;;
  3)  # v43 alone where the grouped down runs (M = 16), then the [gpu] tests of the default build;
      # and the check of gu_shx=2 (the shared expert's tile split at M = 1: other sums, so its log
      # differs from the default's; it must pass SPEC 8 on its own).
    MOEGEMV_SEED=63 MOEGEMV_TUNE=gu_shx=2 MOEGEMV_CACHE_DIR=/tmp/cache_chk_shx2 timeout 120 .gpubin/moegemv check \
      --shape 7168:2048:2048:8 --shape 5120:1536:1536:8 --m 1,2 --e 16,256 --replays 2 > "$out/check_shx2.log" 2>&1
    check_counts "$out/check_shx2.log" $?
    VARIANTS="n: c:dc_gcount=1 c2:dc_gcount=1 n2:" MODELS=deepseek-v3,glm-4.5 MS=16 \
      ROWS=" down |ceiling" tools/gpu_ab.sh | tee "$out/run3.txt"
    MOEGEMV_CACHE_DIR=/tmp/cache_tests timeout 240 .gpubin/test_runtime "[gpu]" > "$out/tests3.log" 2>&1
    echo "[gpu] tests: rc=$?"; grep -aE "^test cases|FAILED" "$out/tests3.log" | head -8
    ;;
  4)  # One consumer warp per segment again (dc_chunks=1, 9 + 2 warps on DeepSeek-V3 and GLM-4.5):
      # session 5 measured 2 warps 8% faster, but since v37 a warp's unit loop is unrolled whole;
      # with one warp per segment it has 8 steps per unit and two accumulators, so per word 22.5
      # instructions and 12.5 integer-ALU ops against 26.2 and 14.6 with two (cuobjdump, DeepSeek-V3).
    # And v44 alone (gu_shx=1; 2: its tile split too). Llama-4 likewise: 4 warps per segment instead of 8 (8 steps per
    # unit: 22.9 instructions per word against 27.7), and v44 where the shared expert is half of
    # gate_up at M = 1.
    VARIANTS="n: c:dc_chunks=1 cd:dc_chunks=1,dc_decode=3 s:gu_shx=1 t:gu_shx=2 n2:" \
      MODELS=deepseek-v3,glm-4.5 MS=1,4 ROWS=" gate_up | down |pair_pdl|ceiling" \
      tools/gpu_ab.sh | tee "$out/run4.txt"
    ;;
  4b) # Run 4's Llama-4 part.
    VARIANTS="n: c:dc_chunks=4 s:gu_shx=1 s2:gu_shx=1 c2:dc_chunks=4 n2:" \
      MODELS=llama4-maverick MS=1,4 ROWS=" gate_up | down |pair_pdl|ceiling" \
      tools/gpu_ab.sh | tee "$out/run4_llama.txt"
    ;;
  5)  # Which pipe binds: Nsight Compute's pipe utilization (and the usual sections) of DeepSeek-V3's
      # kernels at M = 1, the default against ALL.
    PIPES=1 MOEGEMV_CACHE_DIR=/tmp/cache_p0 tools/gpu_profile.sh deepseek-v3 1 ds_m1_default
    PIPES=1 MOEGEMV_TUNE=$ALL MOEGEMV_CACHE_DIR=/tmp/cache_p3 tools/gpu_profile.sh deepseek-v3 1 ds_m1_all
    ;;
  6)  # The closing bench (every preset, M = 1, 2, 4, 8, 16, JSON for PERF.md's table and the plot)
      # of the build's defaults, or of TUNE= (e.g. the winners before they become defaults).
    MOEGEMV_TUNE=${TUNE:-} MOEGEMV_CACHE_DIR=/tmp/cache_final timeout 300 .gpubin/moegemv bench \
      --json "$out/s14_final.json" > "$out/s14_final.log" 2>&1
    echo "bench: rc=$?"; tail -32 "$out/s14_final.log"
    ;;
esac
