#!/usr/bin/env bash
# Session 29's device plan (build: main, `make gpubin`; carry [".gpubin"]). The card is printed
# first: compare numbers only within a call. Letters run in order; a step that no longer fits the
# call's LIMIT is skipped and says so.
#   e  the block scales prefetched into L2 by the down's producer (dc_spre=1, down_produce.cuh)
#      against the default and dc_knock=128 (every unit reads tile 0's cached scales: the bound of
#      any scheme that brings the scales nearer; wrong results), mirrored n e s s2 e2 n2, the four
#      presets at M = 1, 4; then dc_spre=1's check (must print the default's lines).
#   f  the three forms of dc_spre (1: the token's blocks before its first copies, 2: after them,
#      3: unit u + 1's lines after unit u's copies) against the default, mirrored n e f j j2 f2 e2
#      n2, the four presets at M=1; then the checks of 2 and 3.
#   L  dc_spre=1 and 2 on Llama-4 and DeepSeek-V3 at M = 1, 4, 16 with and without PDL (whether
#      either becomes a per-preset default), mirrored n e f f2 e2 n2.
#   n  ncu of the down alone at M=1 (Llama-4, then DeepSeek-V3), the default against dc_spre=1:
#      whether the consumers' long-scoreboard stalls per issue (3.44 with the copies, 1.14 without
#      on Llama-4, session 28 call 11, H100) fall with the scales prefetched.
#   g  ncu of gate_up alone at M=1 (Llama-4: 79% of an H100's ceiling alone; DeepSeek-V3: 88%):
#      what bounds Llama-4's (stalls, occupancy, grid).
#   w  Llama-4's gate_up with 2-warp CTAs (gu_warps=2,gu_minb=10,gu_m1minb=8: the same resident
#      warps, each warp 20 steps of 128 instead of 10 at M=1), mirrored n w w2 n2, M = 1, 4.
#   B  v55's closing bench (session 26's rule, --seed 1; gpu_s27.sh B): s27.json, s27.log.
#   k  the streaming down's halves (gpu_s27.sh k).
#   n3 as n with dc_spre=3.
#   a  by the card: an H200 runs B w g k; any other card w g (calls 4-6 ran e n, f n3, L on
#      H100s; w and g have not run yet).
set -u
source "$(dirname "$0")/gpu_steps.sh"
card=$(card_name); echo "card: $card"
letters=("$@")
if [ "${letters[*]}" = a ]; then
  case $card in *H200*) letters=(B w g k) ;; *) letters=(w g) ;; esac
  echo "a on $card: ${letters[*]}"
fi
for letter in "${letters[@]}"; do
case $letter in
  e) step spre 230 abr "n: e:dc_spre=1 s:dc_knock=128 s2:dc_knock=128 e2:dc_spre=1 n2:" \
       deepseek-v3,glm-4.5,llama4-maverick,qwen3-next 1,4 " down |pair_pdl|ceiling" spre.txt
     step check_spre 35 check_keys spre dc_spre=1 ;;
  f) step spre3 210 abr "n: e:dc_spre=1 f:dc_spre=2 j:dc_spre=3 j2:dc_spre=3 f2:dc_spre=2 e2:dc_spre=1 n2:" \
       deepseek-v3,glm-4.5,llama4-maverick,qwen3-next 1 " down |pair_pdl|ceiling" spre3.txt
     step check_spre2 25 check_keys spre2 dc_spre=2
     step check_spre3 25 check_keys spre3 dc_spre=3 ;;
  w) step llama_w2 90 abr "n: w:gu_warps=2,gu_minb=10,gu_m1minb=8 w2:gu_warps=2,gu_minb=10,gu_m1minb=8 n2:" \
       llama4-maverick 1,4 " gate_up |pair|ceiling" llama_w2.txt ;;
  g) step ncu_gu 100 eval 'ncu_gate_up llama ""; ncu_gate_up ds "" deepseek-v3' ;;
  L) step spre_m 220 abr "n: e:dc_spre=1 f:dc_spre=2 f2:dc_spre=2 e2:dc_spre=1 n2:" \
       llama4-maverick,deepseek-v3 1,4,16 " down |pair|ceiling" spre_m.txt ;;
  n3) step ncu_spre3 200 eval 'ncu_down def ""; ncu_down spre3 dc_spre=3;
       ncu_down ds_def "" deepseek-v3; ncu_down ds_spre3 dc_spre=3 deepseek-v3' ;;
  n) step ncu_spre 200 eval 'ncu_down def ""; ncu_down spre dc_spre=1;
       ncu_down ds_def "" deepseek-v3; ncu_down ds_spre dc_spre=1 deepseek-v3' ;;
  B|k) step "s27_$letter" 150 env LIMIT="$(left)" bash "$(dirname "$0")/gpu_s27.sh" "$letter" ;;
  *) echo "gpu_s29.sh: no run letter $letter (a, e, f, g, w, L, n, n3, B, k)" >&2 ;;
esac
done
echo "call done at ${SECONDS} s"
