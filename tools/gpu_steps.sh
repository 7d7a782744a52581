# Sourced by the per-session device scripts (tools/gpu_s21.sh ... gpu_s24.sh): $out made; `step`,
# which runs a step only if the call has the seconds it needs left (LIMIT, default 560 s of the
# device's 600 s per call), so that a call cut short still brings back what ran.
# The shared steps below (check_keys, gpu_tests) follow it, then abr (an A/B through gpu_ab.sh),
# timeline (CTA stamps), card_name and the NEED guard.
out=${OUT:-/tmp/out}
mkdir -p "$out"
limit=${LIMIT:-560}
left() { echo $((limit - SECONDS)); }
step() {  # step NAME NEEDED_SECONDS COMMAND...: runs COMMAND if NEEDED_SECONDS are left
  local name=$1 need=$2; shift 2
  if [ "$(left)" -lt "$need" ]; then echo "== $name: skipped ($(left) s left, needs $need)"; return 1; fi
  echo "== $name (at ${SECONDS} s)"; "$@"; echo "== $name done (at ${SECONDS} s)"
}
# check_keys NAME TUNE: `moegemv check` with seed 61 on four presets' shapes at M = 1, 3, 16 (the
# scale-after forms' check since session 21): the probe's verdict and the failing (shape, M) keys.
# CHECK_BIN: another build in .gpubin (default moegemv).
check_keys() {
  MOEGEMV_SEED=61 MOEGEMV_TUNE="$2" MOEGEMV_CACHE_DIR=/tmp/cache_check_$1 timeout 120 \
    ".gpubin/${CHECK_BIN:-moegemv}" check \
    --shape 7168:2048:2048:8 --shape 2048:512:512:10 --shape 5120:1536:1536:8 --shape 5120:8192:8192:1 \
    --m 1,3,16 --e 16 --replays 1 > "$out/check_e_$1.log" 2>&1; echo "check $1 rc=$?"
  grep -a 'probe' "$out/check_e_$1.log" | cut -c1-200
  echo "FAIL keys: $(grep -aoE '^FAIL [0-9:]+ M=[0-9]+ ' "$out/check_e_$1.log" | sort -u | tr '\n' ' ')"
}
# gpu_tests NAME: the [gpu] test cases, the log under $out, the count printed.
gpu_tests() {
  MOEGEMV_CACHE_DIR=/tmp/cache_tests_$1 timeout 150 .gpubin/test_runtime '[gpu]' > "$out/tests_$1.log" 2>&1
  echo "tests rc=$?"; grep -aE '^test cases' "$out/tests_$1.log"
}
# check_lines NAME TUNE SEED: `moegemv check` of Qwen3-Next's shape at M = 1, 3 with that seed,
# its PASS / FAIL lines into check_NAME.lines (to compare a variant's with the default's).
check_lines() {
  MOEGEMV_SEED=$3 MOEGEMV_TUNE="$2" MOEGEMV_CACHE_DIR=/tmp/cache_cl_$1 timeout 60 \
    .gpubin/moegemv check --shape 2048:512:512:10 --m 1,3 --e 16 --replays 1 \
    > "$out/check_$1.log" 2>&1; echo "check $1 rc=$?"
  grep -aE "^(PASS|FAIL)" "$out/check_$1.log" > "$out/check_$1.lines"
}
# check_variants SEED SHOWN NAME:TUNE...: check_lines of the default (n) and of each variant
# with that seed, the default's first SHOWN lines printed, then whether each variant's lines are
# the default's ("no lines" when the default's check gave none: a failed check matches nothing).
check_variants() {
  local seed=$1 shown=$2 v; shift 2
  check_lines n "" "$seed"
  for v in "$@"; do check_lines "${v%%:*}" "${v#*:}" "$seed"; done
  cut -c1-100 "$out/check_n.lines" | head -"$shown"
  [ -s "$out/check_n.lines" ] || { echo "no lines"; return; }
  for v in "$@"; do
    cmp -s "$out/check_n.lines" "$out/check_${v%%:*}.lines" && echo "${v%%:*}: the default's lines" \
      || echo "${v%%:*}: lines DIFFER"
  done
}
# closing_bench NAME NEED TIMEOUT: the full `moegemv bench --seed 1` into NAME.json / NAME.log
# if NEED seconds are left (the H200 took 65 s in session 41), its M=1 rows and ceiling printed.
closing_bench() {
  MOEGEMV_CACHE_DIR=/tmp/cache_close step bench "$2" eval 'timeout '"$3"' .gpubin/moegemv bench \
    --seed 1 --json "$out/'"$1"'.json" > "$out/'"$1"'.log" 2>&1; echo "bench rc=$?"
    grep -a "M=1 \|ceiling:" "$out/'"$1"'.log"'
}
# pack_out: everything under $out into one out.tgz, left there alone (a call brings back at most
# 8 files: session 41's call 1 lost its bench JSON). A session script runs `trap pack_out EXIT`;
# the scripts it calls must not, or they pack before it ends.
pack_out() {
  tar czf /tmp/out.tgz -C "$out" . && rm -rf "${out:?}"/* && mv /tmp/out.tgz "$out/out.tgz"
  ls -la "$out"
}
# abr VARIANTS MODELS MS ROWS FILE: tools/gpu_ab.sh's table of those variants, also in $out/FILE.
abr() { VARIANTS="$1" MODELS=$2 MS=$3 ROWS="$4" OUT=$out tools/gpu_ab.sh | tee "$out/$5"; }
# timeline NAME TUNE [MODEL]: M=1 (TL_M=N: M=N), the pairs' CTA stamps, appended to tl_all.log.
# TL_MODE=N: the down's dc_timeline (default 1; 8..11 its wait sums, templates/timeline.cuh:
# their lines shown).
timeline() {
  local shown="M=${TL_M:-1} pair|wait return to last end"
  [ "${TL_MODE:-1}" -ge 8 ] && shown="M=${TL_M:-1} pair|second stamp|  down [0-9]+ CTAs"
  echo "-- timeline $1 ($2) ${3:-deepseek-v3} M=${TL_M:-1} dc_timeline=${TL_MODE:-1}" \
    | tee -a "$out/tl_all.log"
  MOEGEMV_CACHE_DIR=/tmp/cache_tl_$1 MOEGEMV_TUNE="${2:+$2,}gu_timeline=1,dc_timeline=${TL_MODE:-1}" timeout 100 \
    .gpubin/${TL_BIN:-moegemv} bench --timeline --timeline-replays 3 --model "${3:-deepseek-v3}" \
    --m "${TL_M:-1}" --batches 3 2>&1 | tee -a "$out/tl_all.log" | grep -aE "$shown" | cut -c1-240
}
# ncu_kernel REGEX NAME TAG TUNE [MODEL]: ncu of the first kernel matching REGEX in a preset's
# bench at M=1 (default Llama-4; one layer; ncu flushes the caches): duration, issue, the stall
# reasons per issue, shared-memory wavefronts and bank conflicts, DRAM throughput, achieved
# occupancy, the launch's grid, block and registers; into ncu_NAME_TAG.txt, the key lines printed.
# ncu_path: Nsight Compute's binary (on PATH or in its install folder).
ncu_path() { command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1; }
ncu_kernel() {
  local ncu; ncu=$(ncu_path)
  local file="$out/ncu_$2_$3.txt"
  MOEGEMV_CACHE_DIR=/tmp/cache_ncu_$3 MOEGEMV_TUNE="$4" timeout 120 "$ncu" --clock-control none \
    --graph-profiling node -k "regex:$1" -c 1 --metrics \
'gpu__time_duration.sum,sm__inst_issued.avg.pct_of_peak_sustained_active,regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__block_size,launch__registers_per_thread' \
    .gpubin/moegemv bench --model "${5:-llama4-maverick}" --m 1 --batches 1 --replays 1 --layers 1 \
    > "$file" 2>&1; echo "ncu $3 rc=$?"
  grep -aE "gpu__time|inst_issued|stalled_(long|short|mio|lg|barrier|wait|math|not_sel|selected|no_inst|dispatch|sleep|branch)|wavefronts|bank_conf|dram__|warps_active|launch__" \
    "$file" | awk '{print "  " $1, $(NF-1), $NF}'
}
# ncu_down / ncu_gate_up TAG TUNE [MODEL]: the down alone (session 28), gate_up alone (its M=1
# kernel where it has one; session 29).
ncu_down() { ncu_kernel moegemv_down_combine down "$@"; }
ncu_gate_up() { ncu_kernel moegemv_gate_up gate_up "$@"; }
# card_name: this machine's first GPU, as nvidia-smi names it (compare numbers only within a card).
card_name() { nvidia-smi --query-gpu=name --format=csv,noheader | head -1; }
# NEED=H200 (or any part of a card's name): a script that sources this stops at once on another
# card, so that a call only that card can answer costs the machine's start, not the run (session 25).
case $(card_name 2>/dev/null) in *"${NEED:-}"*) ;; *) echo "not a ${NEED} card ($(card_name)): stopping"; exit 0 ;; esac
# smi_log FILE MS: the card's clocks, power, temperature and throttle reasons every MS ms into FILE,
# in the background; its pid in $smi (kill "$smi" to stop).
smi_log() {
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,\
clocks_throttle_reasons.active --format=csv -lms "$2" > "$1" 2>&1 &
  smi=$!
}
# by_card WORD "H200 LETTERS" "OTHER LETTERS" ARGS...: prints the card, then sets letters=(ARGS),
# or, where ARGS is WORD alone, the letters for this card (printed): a session script's plan by the
# card it got.
by_card() {
  local word=$1 h200=$2 other=$3
  shift 3
  echo "card: $(card_name)"
  letters=("$@")
  [ "$*" = "$word" ] || return 0
  case $(card_name) in
    *H200*) read -ra letters <<< "$h200" ;;
    *) read -ra letters <<< "$other" ;;
  esac
  echo "$word on $(card_name): ${letters[*]}"
}
