#!/usr/bin/env bash
# Session 32's device plan (build: main, `make gpubin`, and v56's as .gpubin/moegemv_v56; carry
# [".gpubin"]). The card is printed first: compare numbers only within a call.
#   a  by the card. An H100 runs session 31's order (v q s: the Llama-4 decision first). An H200,
#      the first since session 25, runs what only it can answer first: session 29's B (v55's
#      closing bench under the cold-weight layer rule, never run on an H200), then session 25's o
#      (gate_up's steps in flight against its warps per SM, DeepSeek-V3 and GLM-4.5 at M = 1, 4:
#      does the H200 want more bytes in flight per SM than 16 warps of 2 steps hold?), then v and q.
#      Each letter's steps are skipped where LIMIT has no room.
#   w  v57 (the build: Llama-4's M = 1 kernel on the split tile, its shared expert's too) against
#      v55 (.gpubin/moegemv_v55, main before v57), mirrored o n n2 o2, Llama-4 at M = 1, 4, 16; then
#      v57's check and the [gpu] tests.
#   b  the build's closing bench (all presets and M, --seed 1): s32.json, s32.log.
#   c  after call 3: w and b on any card, an H200 then o.
#   h  after call 4 (the H100's targets met but Qwen3-Next's): an H200's own questions, stopping at
#      once on any other card (NEED=H200): b, w, then session 25's o and r.
#   x  call 4's M=16 question: the bench's M=16 rows (Llama-4 then DeepSeek-V3, --seed 1) run
#      with --m 16 alone, then --m 8,16, then the full bench (b, clocks logged): are the full
#      bench's M=16 pairs slower (call 4: 556.6 us against the A/B's 481.4 on Llama-4) by what ran
#      before them?
#   d  by the card: an H200 runs h's letters (b w o r); any other card x.
#   o, r go to gpu_s25.sh; B to gpu_s29.sh; s to gpu_s31.sh; any other letter to gpu_s30.sh (after
#      call 3 .gpubin/moegemv is v57: B and the n rows of v, q and s measure v57, not v55).
set -u
dir=$(dirname "$0")
[ "$*" = h ] && NEED=H200
source "$dir/gpu_steps.sh"
card=$(card_name); echo "card: $card"
letters=("$@")
if [ "${letters[*]}" = a ]; then
  case $card in *H200*) letters=(B o v q) ;; *) letters=(v q s) ;; esac
  echo "a on $card: ${letters[*]}"
elif [ "${letters[*]}" = h ]; then
  letters=(b w o r)
elif [ "${letters[*]}" = d ]; then
  case $card in *H200*) letters=(b w o r) ;; *) letters=(x) ;; esac
  echo "d on $card: ${letters[*]}"
elif [ "${letters[*]}" = c ]; then
  case $card in *H200*) letters=(w b o) ;; *) letters=(w b) ;; esac
  echo "c on $card: ${letters[*]}"
fi
for letter in "${letters[@]}"; do
  case $letter in
    w) step llama_v57 120 abr "o@moegemv_v55: n: n2: o2@moegemv_v55:" llama4-maverick 1,4,16 \
         " gate_up | down |pair|ceiling" llama_v57.txt
       step check_v57 30 check_keys v57 ""
       step tests_v57 40 gpu_tests v57 ;;
    b) # The card's clocks, power and throttle reasons every 0.5 s beside it (smi.csv): call 4's
       # M=16 pair rows were 10-16% slower than the A/B harness's on the same binary and card.
       smi_log "$out/smi.csv" 500
       closing_bench s32 170 300
       kill "$smi" 2>/dev/null ;;
    x) for ms in 16 8,16; do
         step "m16_$ms" 60 eval 'timeout 100 .gpubin/moegemv bench --seed 1 --model \
           llama4-maverick,deepseek-v3 --m '"$ms"' > "$out/m16_'"$ms"'.log" 2>&1
           grep -a "M=16 pair" "$out/m16_'"$ms"'.log"'
       done
       LIMIT="$(left)" bash "$0" b ;;
    o|r) LIMIT="$(left)" bash "$dir/gpu_s25.sh" "$letter" ;;
    B) LIMIT="$(left)" bash "$dir/gpu_s29.sh" B ;;
    s) LIMIT="$(left)" bash "$dir/gpu_s31.sh" s ;;
    *) LIMIT="$(left)" bash "$dir/gpu_s30.sh" "$letter" ;;
  esac
done
echo "call done at ${SECONDS} s"
