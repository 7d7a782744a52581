#!/usr/bin/env bash
# Session 23's device plan (build: v48, `make gpubin`; carry [".gpubin"]). The card is printed
# first: compare numbers only within a call. Session 23 call 1 (gpu_s22.sh b c, an H100) found
# that under PDL gate_up runs 5-8 us longer after DeepSeek-V3's dc_safter downs than after the
# default's (3 replays each, mirrored), and that the capped form's down CTAs share SMs with
# gate_up CTAs (both ways). These letters ask why.
#   a  DeepSeek-V3 M=1 timelines, 3 replays each, whole summaries: s (uncapped), c (capped), and
#      each with the down's launch_dependents at its end (dc_launch=2: the next gate_up's CTAs
#      cannot start beside or before the down's last CTA), the default with it too, then n.
#   b  the pair with and without PDL, DeepSeek-V3 M = 1, 4: n, c, c with dc_launch=2 (l), the
#      default with dc_launch=2 (m), mirrored.
#   k  on an H200 only: gpu_s22.sh b's knock-outs (session 22's prediction).
#   d  v50 (the streaming down in less shared memory: no scale scratch where its scales are held,
#      8-byte barriers, the scale-after zero row a warp's steps long; DeepSeek-V3's dc_safter down
#      and GLM-4.5's down then fit the 196 KB carveout) against v48 (.gpubin/moegemv_v48):
#      timelines (DeepSeek-V3 n, c and GLM-4.5 on v50; GLM-4.5 and DeepSeek-V3's c on v48), the
#      pairs of DeepSeek-V3 and GLM-4.5 at M = 1, 4 (o n c c2 n2 o2), v50's check and [gpu] tests.
#   e  v50's closing bench (all presets and M, --seed 1); on an H200 first DeepSeek-V3's
#      dc_safter=1 against v48 and v50's default (o n c c2 n2 o2, M = 1, 4).
#   f  the scale-after downs' register cap (there so that a gate_up CTA fits beside the down) against
#      none (dc_maxreg=0): in v50's 196 KB split GLM-4.5's down leaves no shared memory for one.
#   g  DeepSeek-V3's grouped down (M = 16; M = 8 runs the streaming down, a control) at 6 rings
#      (175632 bytes: the 196 KB split) and 7 (201744: 228 KB, as the default 8's 227728).
# Next session (not run in session 23: no machine): `e f g` in one call, about 7 minutes.
# Several letters run in one call, in order.
set -u
source "$(dirname "$0")/gpu_steps.sh"
card=$(card_name); echo "card: $card"
for letter in "$@"; do
case $letter in
  a) step timelines 90 eval 'timeline s dc_safter=1,dc_maxreg=0; timeline c dc_safter=1;
       timeline sl dc_safter=1,dc_maxreg=0,dc_launch=2; timeline cl dc_safter=1,dc_launch=2;
       timeline nl dc_launch=2; timeline n ""' ;;
  b) step pairs 150 abr "n: c:dc_safter=1 l:dc_safter=1,dc_launch=2 m:dc_launch=2 m2:dc_launch=2 \
l2:dc_safter=1,dc_launch=2 c2:dc_safter=1 n2:" deepseek-v3 1,4 "pair|ceiling" pairs.txt ;;
  k) case $card in
       *H200*) step knock 150 abr "n: k1:gu_knock=1,dc_knock=1 k2:gu_knock=2,dc_knock=2 \
k3:gu_knock=3,dc_knock=3 k4:gu_knock=4 k15:gu_knock=15 n2:" deepseek-v3,glm-4.5,llama4-maverick 1 \
            " gate_up | down |ceiling" knock.txt ;;
       *) echo "== knock: skipped (not an H200)" ;;
     esac ;;
  d) step timelines 60 eval 'timeline n10 ""; timeline c10 dc_safter=1; timeline g10 "" glm-4.5;
       TL_BIN=moegemv_v48 timeline g48 "" glm-4.5; TL_BIN=moegemv_v48 timeline c48 dc_safter=1'
     step pairs 170 abr "o@moegemv_v48: n: c:dc_safter=1 c2:dc_safter=1 n2: o2@moegemv_v48:" \
       deepseek-v3,glm-4.5 1,4 " down |pair|ceiling" pairs_v50.txt
     step check 40 check_keys v50 ""
     step tests 30 gpu_tests v50 ;;
  e) case $card in  # v50's closing bench; on an H200 first DeepSeek-V3's dc_safter against v48 and v50
       *H200*) step ds_ab 90 abr "o@moegemv_v48: n: c:dc_safter=1 c2:dc_safter=1 n2: o2@moegemv_v48:" \
                 deepseek-v3 1,4 " down |pair|ceiling" ds_h200.txt ;;
     esac
     MOEGEMV_CACHE_DIR=/tmp/cache_close step bench 100 eval 'timeout 150 .gpubin/moegemv bench --seed 1 \
       --json "$out/s23_v50.json" > "$out/s23_v50.log" 2>&1; echo "bench rc=$?"; grep -a "M=1 \|PDL saving\|ceiling\|^  [a-z]" "$out/s23_v50.log" | head -40' ;;
  f) step glm_cap 110 abr "n: u:dc_maxreg=0 u2:dc_maxreg=0 n2:" glm-4.5,llama4-maverick 1,4 \
       " down |pair|ceiling" cap_v50.txt ;;
  g) step grouped 160 abr "n: r6:dc_rings=6 r7:dc_rings=7 r72:dc_rings=7 r62:dc_rings=6 n2:" deepseek-v3 8,16 \
       " down |pair|ceiling" rings.txt ;;
  *) echo "gpu_s23.sh: no run letter $letter (a, b, d, e, f, g, k)" >&2 ;;
esac
done
echo "call done at ${SECONDS} s"
