#!/usr/bin/env bash
# Session 21's device plan: gpu_s20.sh's runs batched into fewer calls (session 21's first three
# calls got no machine; each start costs minutes of the budget). Build here (`make gpubin`),
# carry [".gpubin"]. The card is printed first: compare numbers only within a call.
#   a  gpu_s20.sh 1 (the scale-after checks, one seed), then gpu_s20.sh 5 (dc_safter=1's A/B) if
#      dc held its check, then gpu_s20.sh 4 (gu_safter=1's A/B) if gu held and time is left
#   b  gpu_s20.sh 4 if it did not run in a, then the closing bench of the defaults (--seed 1)
#   c  gpu_s20.sh 2 (gpu_s19.sh's run 6: v47 against v45, ...)
# Steps are skipped when less time is left in the call than they need (LIMIT, default 560 s).
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
limit=${LIMIT:-560}
left() { echo $((limit - SECONDS)); }
step() {  # step NAME NEEDED_SECONDS COMMAND...: runs COMMAND if NEEDED_SECONDS are left
  local name=$1 need=$2; shift 2
  if [ "$(left)" -lt "$need" ]; then echo "== $name: skipped ($(left) s left, needs $need)"; return 1; fi
  echo "== $name (at ${SECONDS} s)"; "$@"; echo "== $name done (at ${SECONDS} s)"
}
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
esac
echo "call done at ${SECONDS} s"
