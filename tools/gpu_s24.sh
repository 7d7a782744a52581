#!/usr/bin/env bash
# Session 24's device plan (build: v50 with the carve knob, `make gpubin`; carry [".gpubin"]).
# The card is printed first: compare numbers only within a call. Several letters run in one call,
# in order; a step that no longer fits the call's LIMIT is skipped and says so.
#   e  v50's closing bench (all presets and M, --seed 1); on an H200 first DeepSeek-V3's
#      dc_safter=1 against v48 and v50's default (o n c c2 n2 o2, M = 1, 4): gpu_s23.sh e.
#   c  gate_up in a chosen L1/shared split (gu_carve: the preferred carveout, a hint): 0 % shared
#      (the most L1) and 100 % (228 KB shared, 28 KB of L1) against the driver's choice, gate_up
#      alone and the pairs, DeepSeek-V3 and GLM-4.5 at M = 1: does gate_up alone lose in a 28 KB
#      L1 what it lost under PDL after a 228 KB-split down (session 23), and gain from more L1?
#   g  DeepSeek-V3's grouped down at 6 and 7 rings against 8 (gpu_s23.sh g).
#   f  the scale-after downs' register cap against none (gpu_s23.sh f).
#   v  v51 (the grouped down's rings kept in the 196 KB split: DeepSeek-V3 6, was 8) against v50
#      (.gpubin/moegemv_v50), M = 16 (DeepSeek-V3, and GLM-4.5 whose rings do not change), o n n2 o2;
#      then v51's check and [gpu] tests.
#   a  on an H200 only: DeepSeek-V3's dc_safter=1 against the default (n c c2 n2, M = 1, 4).
#   b  the build's closing bench (all presets and M, --seed 1): s24.json, s24.log.
#   l  gate_up alone and the pairs at M=1 in each L1 size a down can leave it (gu_carve=85: the
#      196 KB split, 60 KB of L1; 71: 164 KB, 92; 57: 132 KB, 124) against the driver's own split
#      (64 KB, ~190 KB of L1): DeepSeek-V3, GLM-4.5, Llama-4.
#   p  GLM-4.5's streaming down with 2 slots per ring (dc_pipe=2, 142976 bytes: the 164 KB split)
#      against its 3 (199552: 196 KB), M = 1, 4.
#   x  on an H200: b then a; elsewhere Llama-4's CTA timelines at M=1 (gate_up's span after its
#      wait, pair with PDL and without), its default down (168080 bytes a CTA: the 196 KB split)
#      and dc_pipe=1 (102288: the 100 KB split, ~150 KB of L1 for the gate_up after it).
#   w  v52 (branch v52-slots: slots 64 bytes shorter, Llama-4's down in the 164 KB split) against v51
#      (.gpubin/moegemv_v51) at M=1 on Llama-4, DeepSeek-V3, GLM-4.5 (o n n2 o2); v52's check, tests.
#   n  Nsight Compute on gate_up alone, DeepSeek-V3 M=1, in the driver's split and in the 228 KB
#      one (gu_carve=100): why gate_up needs L1 (hit rate, LG throttle, long scoreboard); reports
#      ncu_ds_def_gate_up.txt, ncu_ds_c100_gate_up.txt (and the source-level csv) in $OUT.
#   s  gu_spair=1 (gate_up's routed tiles take sector-paired features: half the scale sectors)
#      against the default: gate_up and the pairs, DeepSeek-V3, GLM-4.5 (split tiles) and Llama-4
#      (16-row tiles) at M = 1, 4 (n s s2 n2); then in the 228 KB split (gu_carve=100 with and
#      without it); its check (should print the default's lines: the same sums, other CTAs).
#   k  on an H200 only: the knock-outs (gpu_s23.sh k).
set -u
source "$(dirname "$0")/gpu_steps.sh"
card=$(card_name); echo "card: $card"
for letter in "$@"; do
case $letter in
  e|g|f|k) LIMIT=$((limit - SECONDS)) OUT=$out "$(dirname "$0")/gpu_s23.sh" "$letter" | grep -v "^card:" ;;
  c) step carve 100 abr "n: l:gu_carve=0 s:gu_carve=100 s2:gu_carve=100 l2:gu_carve=0 n2:" \
       deepseek-v3,glm-4.5 1 " gate_up |pair|ceiling" carve.txt ;;
  a) case $card in
       *H200*) step ds_safter 70 abr "n: c:dc_safter=1 c2:dc_safter=1 n2:" deepseek-v3 1,4 \
                 " down |pair|ceiling" ds_safter.txt ;;
       *) echo "== ds_safter: skipped (not an H200)" ;;
     esac ;;
  b) MOEGEMV_CACHE_DIR=/tmp/cache_close step bench 100 eval 'timeout 150 .gpubin/moegemv bench --seed 1 \
       --json "$out/s24.json" > "$out/s24.log" 2>&1; echo "bench rc=$?"; grep -a "M=1 \|PDL saving\|ceiling\|^  [a-z]" "$out/s24.log" | head -60' ;;
  l) step l1_curve 150 abr "n: a:gu_carve=85 b:gu_carve=71 c:gu_carve=57 c2:gu_carve=57 b2:gu_carve=71 \
a2:gu_carve=85 n2:" deepseek-v3,glm-4.5,llama4-maverick 1 " gate_up |pair|ceiling" l1_curve.txt ;;
  p) step glm_pipe 70 abr "n: p:dc_pipe=2 p2:dc_pipe=2 n2:" glm-4.5 1,4 " gate_up | down |pair|ceiling" glm_pipe.txt ;;
  x) case $card in
       *H200*) "$0" b a | grep -v "^card:" ;;
       *) step timelines 70 eval 'timeline ln "" llama4-maverick; timeline l1 dc_pipe=1 llama4-maverick' ;;
     esac ;;
  w) step v52 80 abr "o@moegemv_v51: n: n2: o2@moegemv_v51:" llama4-maverick,deepseek-v3,glm-4.5 1 \
       " down |pair|ceiling" v52.txt
     step check 25 check_keys v52 ""
     step tests 30 gpu_tests v52 ;;
  n) step ncu 200 eval 'KERNELS=gate_up OUT=$out tools/gpu_profile.sh deepseek-v3 1 ds_def;
       MOEGEMV_TUNE=gu_carve=100 MOEGEMV_CACHE_DIR=/tmp/cache_c100 KERNELS=gate_up OUT=$out \
         tools/gpu_profile.sh deepseek-v3 1 ds_c100;
       grep -aE "L1/TEX Hit|L2 Hit|Mem Busy|Max Bandwidth|Stall|Shared Memory Configuration|Driver Shared" \
         "$out/ncu_ds_def_gate_up.txt" "$out/ncu_ds_c100_gate_up.txt" | cut -c1-160 | head -40' ;;
  s) step spair 150 abr "n: s:gu_spair=1 s2:gu_spair=1 n2:" deepseek-v3,glm-4.5,llama4-maverick 1,4 \
       " gate_up |pair|ceiling" spair.txt
     step spair_l1 60 abr "c:gu_carve=100 sc:gu_carve=100,gu_spair=1 sc2:gu_carve=100,gu_spair=1 c2:gu_carve=100" \
       deepseek-v3,llama4-maverick 1 " gate_up |ceiling" spair_l1.txt
     step check 25 check_keys spair gu_spair=1 ;;
  v) step v51 80 abr "o@moegemv_v50: n: n2: o2@moegemv_v50:" deepseek-v3,glm-4.5 16 " down |pair|ceiling" v51.txt
     step check 40 check_keys v51 ""
     step tests 30 gpu_tests v51 ;;
  *) echo "gpu_s24.sh: no run letter $letter (a, b, c, e, f, g, k, l, n, p, s, v, w, x)" >&2 ;;
esac
done
echo "call done at ${SECONDS} s"
