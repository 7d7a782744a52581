#!/usr/bin/env bash
# Session 21's device plan: gpu_s20.sh's runs batched into fewer calls (session 21's first three
# calls got no machine; each start costs minutes of the budget). Build here (`make gpubin`),
# carry [".gpubin"]. The card is printed first: compare numbers only within a call.
#   a  gpu_s20.sh 1 (the scale-after checks, one seed), then gpu_s20.sh 5 (dc_safter=1's A/B) if
#      dc held its check, then gpu_s20.sh 4 (gu_safter=1's A/B) if gu held and time is left
#   b  gpu_s20.sh 4 if it did not run in a, then the closing bench of the defaults (--seed 1)
#   c  gpu_s20.sh 2 (gpu_s19.sh's run 6: v47 against v45, ...)
#   d  dc_safter=1 with the down's registers capped (its default since call 2: 72 on DeepSeek-V3
#      and GLM-4.5) so that a gate_up CTA (128 threads x 128 registers) fits beside a 640-thread
#      down CTA, against it uncapped (dc_maxreg=0; call 1: 96 / 92 registers, DeepSeek-V3's pair
#      with PDL +1.8% while its down -3.1%), and on DeepSeek-V3 the default down at 72 registers
#      (at 74 it leaves no room either): n s c k k2 c2 s2 n2, M = 1, 4, with the pair
#      without PDL too. On an H200 first the closing bench and gu_safter=1's A/B (n g g2 n2), after
#      the caps dc_safter=1's A/B on Llama-4 and Qwen3-Next and v47 against v45
#   e  v48 (build it with params.h kDownSafterByDefault = true; .gpubin/moegemv_s21a is fd40e66's
#      build) (dc_safter=1 the default down where it gained, x/act staged x 2^64): its check (seed
#      61, four shapes; the probe now a verdict, with x at the window's ends) and gu_safter=1's at
#      the new shift, the [gpu] tests, v48 against the build before it (.gpubin/moegemv_s21a)
#      at M = 1, 4; on an H200 the closing bench as well
# Steps are skipped when less time is left in the call than they need (LIMIT, default 560 s).
set -u
source "$(dirname "$0")/gpu_steps.sh"
held() { grep -q "^$1: held its check" "$out/verdicts.txt" 2>/dev/null; }
case "${1:?run letter}" in
  a)
    step checks 200 bash -c "OUT=$out tools/gpu_s20.sh 1 | tee $out/verdicts.txt"
    if held dc; then step dc_ab 150 env OUT="$out" tools/gpu_s20.sh 5; else echo "== dc_ab: not run (dc did not hold)"; fi
    if held gu || held gushx; then step gu_ab 240 env OUT="$out" tools/gpu_s20.sh 4 && touch "$out/gu_ab_ran"
    else echo "== gu_ab: not run (gu did not hold)"; fi
    ;;
  b)
    [ "${GU_AB:-1}" = 1 ] && step gu_ab 240 env OUT="$out" tools/gpu_s20.sh 4
    step bench 200 bash -c "MOEGEMV_CACHE_DIR=/tmp/cache_close timeout 200 .gpubin/moegemv bench --seed 1 \
      --json $out/s21_close.json > $out/s21_close.log 2>&1; echo bench rc=\$?; \
      grep -a 'M=1 \|PDL saving\|ceiling' $out/s21_close.log | head -40"
    ;;
  c)
    OUT=$out tools/gpu_s20.sh 2
    ;;
  d)
    card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $card"
    abr() { VARIANTS="$1" MODELS=$2 MS=$3 ROWS=" gate_up | down | pair |pair_pdl|ceiling" tools/gpu_ab.sh | tee "$out/$4"; }
    cap() {  # s: dc_safter uncapped (dc_maxreg=0), c: its default cap (72 here), k: the default down at 72
      step cap_ds 150 abr "n: s:dc_safter=1,dc_maxreg=0 c:dc_safter=1 k:dc_maxreg=72 k2:dc_maxreg=72 c2:dc_safter=1 s2:dc_safter=1,dc_maxreg=0 n2:" \
        deepseek-v3 1,4 cap_ds.txt
      step cap_glm 100 abr "n: s:dc_safter=1,dc_maxreg=0 c:dc_safter=1 c2:dc_safter=1 s2:dc_safter=1,dc_maxreg=0 n2:" \
        glm-4.5 1,4 cap_glm.txt
    }
    case $card in
      *H200*)  # the H200's first numbers since session 19 come first (the issue's card)
        step bench 60 bash -c "MOEGEMV_CACHE_DIR=/tmp/cache_close timeout 200 .gpubin/moegemv bench --seed 1 \
          --json $out/s21_h200.json > $out/s21_h200.log 2>&1; echo bench rc=\$?; \
          grep -a 'M=1 \|ceiling' $out/s21_h200.log | head -24"
        step gu_ab 150 abr "n: g:gu_safter=1 g2:gu_safter=1 n2:" deepseek-v3,glm-4.5,llama4-maverick,qwen3-next 1,4 gu_h200.txt
        cap
        step dc_ab 90 abr "n: s:dc_safter=1 s2:dc_safter=1 n2:" llama4-maverick,qwen3-next 1,4 dc_h200.txt
        step v47 120 abr "o@moegemv_v45: n: n2: o2@moegemv_v45:" deepseek-v3,glm-4.5,llama4-maverick,qwen3-next 1,4 v47_h200.txt
        ;;
      *) cap ;;
    esac
    ;;
  e)  # in order of need (a call may be cut short: what is under $OUT still comes back)
    card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $card"
    step check_v48 40 check_keys v48 ""
    step v48_ab 60 bash -c "VARIANTS='o@moegemv_s21a: n: n2: o2@moegemv_s21a:' MODELS=glm-4.5,llama4-maverick,qwen3-next,deepseek-v3 \
      MS=1,4 ROWS=' down |pair_pdl|ceiling' OUT=$out tools/gpu_ab.sh | tee $out/v48_ab.txt"
    step tests 30 gpu_tests e
    step check_gu 40 check_keys gu gu_safter=1
    case $card in
      *H200*) step bench 60 bash -c "MOEGEMV_CACHE_DIR=/tmp/cache_close timeout 200 .gpubin/moegemv bench --seed 1 \
          --json $out/s21_v48_h200.json > $out/s21_v48_h200.log 2>&1; echo bench rc=\$?; \
          grep -a 'M=1 \|ceiling' $out/s21_v48_h200.log | head -24" ;;
    esac
    ;;
esac
echo "call done at ${SECONDS} s"
