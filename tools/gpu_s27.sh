#!/usr/bin/env bash
# Session 27's device plan (build: main, `make gpubin`; carry [".gpubin"]). The card is printed
# first: compare numbers only within a call. Letters run in order; a step that no longer fits the
# call's LIMIT is skipped and says so. No NEED guard by default: `a` picks the letters by the card
# that came, so a call that asked for an H200 and got an H100 still brings back an answer.
#   b  the closing bench under session 26's layer rule, then M=1 under the old counts (gpu_s26.sh b).
#   B  the closing bench only (session 26's rule, --seed 1): s27.json, s27.log.
#   g  GLM-4.5 at M = 1, 4, 16: dc_pipe=2 (p: its streaming down in the 164 KB split) and
#      dc_pipe=2,gu_spair=1 (q) against the default, mirrored n p q q2 p2 n2.
#   o  gate_up's steps in flight against its warps per SM (gpu_s25.sh o: 16 warps of 2 steps, the
#      default, against 12 of 3 and 8 of 4), DeepSeek-V3 and GLM-4.5 at M = 1, 4.
#   v  v55 (GLM-4.5's streaming down in the 164 KB split, 2 slots per segment) against v52's binary
#      (.gpubin/moegemv_v52), mirrored o n n2 o2, the four presets at M = 1, 4 (only GLM-4.5's
#      down changed: the others are a null check); then v55's check and [gpu] tests.
#   l  Llama-4's gate_up on the split tile (DeepSeek-V3's and GLM-4.5's, 88% / 81% of an H100's
#      ceiling alone against Llama-4's 79% on the 16-row tile; session 4 found it slower on K = 1,
#      many builds ago): s gu_split=1 (its M=1 kernel 3 steps at 4 CTAs/SM), t gu_split=1,
#      gu_m1pipe=0 (2 steps), mirrored n s t t2 s2 n2, M = 1, 4.
#   k  the streaming down's halves (new diagnostic knock bits, wrong results): f dc_knock=32 (no
#      weight copies: the consumers compute on what the slots hold), c dc_knock=64 (no dot: the
#      copies, waits and the combine only), x dc_knock=96 (neither), mirrored n f c x x2 c2 f2 n2,
#      the four presets at M=1.
#   p  the down's producer, now that its two halves are known to overlap badly (call 5): l
#      dc_lanes=1 (one lane per segment, each waiting only for its own ring), m dc_lanes=3 (the
#      same, polling without suspending), r dc_runs=1 (one copy per slot: half the copies),
#      mirrored n l m r r2 m2 l2 n2, DeepSeek-V3, GLM-4.5, Llama-4 at M=1.
#   w  the streaming down's waits in the pair (dc_timeline=8..11, templates/timeline.cuh; M=1,
#      gate_up stamped too): per down CTA the sum of consumer warp 0's waits for a filled slot (8),
#      the producer's for a free one (9), consumer warp 0's for the combiner (10), the combiner's
#      for the sums (11), against each CTA's time; DeepSeek-V3, GLM-4.5, Llama-4.
#   n  ncu of Llama-4's down alone (M=1, one layer; ncu flushes the caches), the default against
#      dc_knock=32 (no copies): duration, issue, the stall reasons per issue, shared-memory
#      wavefronts and bank conflicts: why its consumers take 18.8 us with the copies, 13.9 without.
#   s  what slows the consumers under the copies: q dc_knock=256 (no copies, the same runs
#      prefetched into L2: the DRAM traffic without the shared-memory writes), s dc_knock=128
#      (every unit reads tile 0's block scales, cached), t dc_knock=160 (that and no copies),
#      against the default and f dc_knock=32 (no copies), mirrored n f q s t t2 s2 q2 f2 n2,
#      Llama-4 and DeepSeek-V3 at M=1.
#   a  by the card: an H200 runs B k; any other card the letters in A_OTHER (none by default:
#      session 28 ran s n on an H100).
set -u
source "$(dirname "$0")/gpu_steps.sh"
# waits: the pairs at M=1 with the down's wait sums (one mode per bench; gpu_steps.sh timeline,
# into tl_all.log; call 10 of session 27 ran an earlier copy of this loop into waits.log).
waits() {
  for model in deepseek-v3 glm-4.5 llama4-maverick; do
    for mode in 8 9 10 11; do TL_MODE=$mode timeline "w${mode}_$model" "" $model; done
  done
}
card=$(card_name); echo "card: $card"
letters=("$@")
if [ "${letters[*]}" = a ]; then
  case $card in *H200*) letters=(B k) ;; *) letters=(${A_OTHER:-}) ;; esac
  echo "a on $card: ${letters[*]}"
fi
for letter in "${letters[@]}"; do
case $letter in
  B) MOEGEMV_CACHE_DIR=/tmp/cache_close step bench 150 eval 'timeout 300 .gpubin/moegemv bench --seed 1 \
       --json "$out/s27.json" > "$out/s27.log" 2>&1; echo "bench rc=$?"; grep -a "M=1 \|ceiling:" "$out/s27.log"' ;;
  b) step close 280 env LIMIT=$(left) bash tools/gpu_s26.sh b ;;
  g) step glm 220 abr "n: p:dc_pipe=2 q:dc_pipe=2,gu_spair=1 q2:dc_pipe=2,gu_spair=1 p2:dc_pipe=2 n2:" \
       glm-4.5 1,4,16 " gate_up | down |pair|ceiling" glm.txt ;;
  v) step v55 200 abr "o@moegemv_v52: n: n2: o2@moegemv_v52:" deepseek-v3,glm-4.5,llama4-maverick,qwen3-next \
       1,4 " gate_up | down |pair|ceiling" v55.txt
     step check 30 check_keys v55 ""
     step tests 40 gpu_tests v55 ;;
  l) step llama_split 150 abr "n: s:gu_split=1 t:gu_split=1,gu_m1pipe=0 t2:gu_split=1,gu_m1pipe=0 \
s2:gu_split=1 n2:" llama4-maverick 1,4 " gate_up |pair|ceiling" llama_split.txt ;;
  k) step halves 200 abr "n: f:dc_knock=32 c:dc_knock=64 x:dc_knock=96 x2:dc_knock=96 c2:dc_knock=64 \
f2:dc_knock=32 n2:" ${K_MODELS:-deepseek-v3,glm-4.5,llama4-maverick,qwen3-next} 1 " down |pair_pdl|ceiling" halves.txt ;;
  p) step producer 200 abr "n: l:dc_lanes=1 m:dc_lanes=3 r:dc_runs=1 r2:dc_runs=1 m2:dc_lanes=3 \
l2:dc_lanes=1 n2:" deepseek-v3,glm-4.5,llama4-maverick 1 " down |pair_pdl|ceiling" producer.txt ;;
  w) step waits 200 waits ;;
  s) step scales 220 abr "n: f:dc_knock=32 q:dc_knock=256 s:dc_knock=128 t:dc_knock=160 t2:dc_knock=160 \
s2:dc_knock=128 q2:dc_knock=256 f2:dc_knock=32 n2:" llama4-maverick,deepseek-v3 1 " down |pair_pdl|ceiling" \
       scales.txt ;;
  n) step ncu_def 50 ncu_down def ""
     step ncu_f 50 ncu_down f dc_knock=32 ;;
  o) step depth 220 abr "n: a:gu_pipe=3,gu_minb=3 c:gu_pipe=4,gu_minb=2 c2:gu_pipe=4,gu_minb=2 \
a2:gu_pipe=3,gu_minb=3 n2:" deepseek-v3,glm-4.5 1,4 " gate_up |pair_pdl|ceiling" depth.txt ;;
  *) echo "gpu_s27.sh: no run letter $letter (a, b, B, g, k, l, n, o, p, s, v, w)" >&2 ;;
esac
done
echo "call done at ${SECONDS} s"
