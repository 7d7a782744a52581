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
# Several letters run in one call, in order.
set -u
source "$(dirname "$0")/gpu_steps.sh"
abr() { VARIANTS="$1" MODELS=$2 MS=$3 ROWS="$4" OUT=$out tools/gpu_ab.sh | tee "$out/$5"; }
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $card"
timeline() {  # timeline NAME TUNE: DeepSeek-V3 M=1, the pairs' CTA stamps, appended to tl_all.log
  echo "-- timeline $1 ($2)" | tee -a "$out/tl_all.log"
  MOEGEMV_CACHE_DIR=/tmp/cache_tl_$1 MOEGEMV_TUNE="${2:+$2,}gu_timeline=1,dc_timeline=1" timeout 100 \
    .gpubin/moegemv bench --timeline --timeline-replays 3 --model deepseek-v3 --m 1 \
    --batches 3 2>&1 | tee -a "$out/tl_all.log" | grep -aE "M=1 pair|wait return to last end" | cut -c1-200
}
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
  *) echo "gpu_s23.sh: no run letter $letter (a, b, k)" >&2 ;;
esac
done
echo "call done at ${SECONDS} s"
