#!/usr/bin/env bash
# Session 20's device plan (no device was lent in session 20: written for the next session). Build
# here (`make gpubin`), carry [".gpubin"] (with .gpubin/moegemv_v45 for run 2). The card is
# printed first: compare numbers only within a run.
#   1  the scale-after candidates, never run on a GPU: dc_safter=1 (the streaming down, session 19)
#      and gu_safter=1 (gate_up's routed tiles, session 20). Check logs with one seed against
#      the defaults' (four shapes, M = 1, 3, 16; gu_safter alone and with gu_shx=2, where the
#      shared expert's tiles take the form too), v47's parked feed (3072:1024:1536:6). A candidate
#      is timed only if its check has no more FAIL lines than the default's (the last lines say)
#   5  dc_safter=1's A/B: n s s n, M = 1, 4, every preset
#   4  gu_safter=1's A/B: n g x x g n (x: with gu_shx=1, the shared expert's x staged at M = 1, so
#      its tiles take the form too), M = 1, 4, every preset
#   2  gpu_s19.sh's run 6: on an H200, v47 against v45 (M = 1, 4), the ring back on GLM-4.5 and
#      Llama-4, the closing bench and the knock-outs; on an H100, v47 against v45 at M = 2, 8 and
#      the closing bench
#   3  the closing bench and the [gpu] tests with the candidates that held in run 1 (TUNE=...)
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
card=$(nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader | head -1)
echo "card: $card" | tee "$out/card.txt"
ab() { VARIANTS="$1" MODELS=$2 MS=$3 ROWS=" gate_up | down |pair_pdl|ceiling" tools/gpu_ab.sh | tee "$out/$4"; }
case "${1:?run number}" in
  1)
    shapes="--shape 7168:2048:2048:8 --shape 2048:512:512:10 --shape 5120:1536:1536:8 --shape 5120:8192:8192:1"
    for v in default: dc:dc_safter=1 gu:gu_safter=1 gushx:gu_safter=1,gu_shx=2; do
      name=${v%%:*}; tune=${v#*:}
      MOEGEMV_SEED=61 MOEGEMV_TUNE="$tune" MOEGEMV_CACHE_DIR=/tmp/cache_chk_$name timeout 120 \
        .gpubin/moegemv check $shapes --m 1,3,16 --e 16 --replays 1 > "$out/check_$name.log" 2>&1
      rc=$?; echo "$rc" > "$out/rc_$name"
      echo "check $name rc=$rc (1: SPEC 8's known over-bounds, #3); FAIL lines: $(grep -ac FAIL "$out/check_$name.log")"
      tools/check_summary.sh "$out/check_$name.log" | tail -4
    done
    MOEGEMV_SEED=61 MOEGEMV_CACHE_DIR=/tmp/cache_chk_parked timeout 60 .gpubin/moegemv check \
      --shape 3072:1024:1536:6 --m 1,3,16 --e 16 --replays 1 > "$out/check_parked.log" 2>&1
    echo "check parked rc=$?"; tools/check_summary.sh "$out/check_parked.log" | tail -3
    tar -C "$out" -czf "$out/checks.tgz" check_default.log check_dc.log check_gu.log check_gushx.log \
      check_parked.log && rm "$out"/check_*.log
    # Distinct (shape, M) verdicts: check repeats each FAIL line in its summary (session 21: the
    # count of all lines called a candidate with fewer FAILs "not run through").
    keys() { tar -xzOf "$out/checks.tgz" "check_$1.log" | grep -aoE "^$2 [0-9:]+ M=[0-9]+ " | sed 's/^[A-Z]* //' | sort -u | wc -l; }
    fails() { keys "$1" FAIL; }
    verdicts() { keys "$1" "(PASS|FAIL)"; }
    base=$(fails default)
    for name in dc gu gushx; do
      if [ "$(cat "$out/rc_$name")" -gt 1 ] || [ "$(verdicts $name)" -eq 0 ] ||
         [ "$(verdicts $name)" -ne "$(verdicts default)" ]; then
        echo "$name: the check did not run through (rc $(cat "$out/rc_$name"), $(verdicts $name) verdicts," \
          "default $(verdicts default)): do not time it"
      elif [ "$(fails $name)" -le "$base" ]; then echo "$name: held its check (FAIL lines $(fails $name), default $base)"
      else echo "$name: MORE FAIL lines than the default's ($(fails $name) > $base): do not time it"; fi
    done
    rm -f "$out"/rc_*
    ;;
  5)  # dc_safter=1's A/B (only after run 1's check held)
    ab "n: s:dc_safter=1 s2:dc_safter=1 n2:" deepseek-v3,glm-4.5,llama4-maverick,qwen3-next 1,4 dc_safter_ab.txt
    ;;
  4)  # gu_safter=1 (only after run 1's check held), alone and with the shared expert's x staged
    ab "n: g:gu_safter=1 x:gu_safter=1,gu_shx=1 x2:gu_safter=1,gu_shx=1 g2:gu_safter=1 n2:" \
      deepseek-v3,glm-4.5,llama4-maverick,qwen3-next 1,4 gu_safter_ab.txt
    ;;
  2)
    OUT=$out tools/gpu_s19.sh 6
    ;;
  3)
    MOEGEMV_TUNE=${TUNE:?} MOEGEMV_CACHE_DIR=/tmp/cache_t3 timeout 150 .gpubin/test_runtime "[gpu]" > "$out/tests.log" 2>&1
    echo "[gpu] tests with $TUNE: rc=$?"; grep -aE "^test cases" "$out/tests.log"
    MOEGEMV_TUNE=$TUNE MOEGEMV_CACHE_DIR=/tmp/cache_t3 timeout 300 .gpubin/moegemv bench --seed 1 \
      --json "$out/s20_tuned.json" > "$out/s20_tuned.log" 2>&1; echo "bench: rc=$?"
    grep -a "M=1 \|PDL saving\|ceiling" "$out/s20_tuned.log" | head -40
    ;;
esac
