#!/usr/bin/env bash
# Session 22's device plan (v48 = the defaults since session 22: dc_safter=1 the streaming down's
# default where it gained, x/act staged x 2^64). Build here (`make gpubin`), carry [".gpubin"]
# (.gpubin/moegemv_v45: d1e9cb8's build, the last H200 table's; moegemv_s21a: fd40e66's, the
# build before v48). The card is printed first: compare numbers only within a call.
#   a  on an H200: v48's closing bench (--seed 1); gu_safter=1 against the default (n g g2 n2,
#      gate_up and the pair with PDL, four presets, M = 1, 4); v48 against v45 and s21a
#      (o a n n2 a2 o2, the down and the pair with PDL).
#      on an H100: DeepSeek-V3 M=1 CTA timelines of the pair with PDL, the default down against
#      dc_safter=1 (uncapped and capped): session 21's PDL-only loss; then v48's closing bench.
#   c  the DeepSeek-V3 timelines of a's H100 branch on any card (session 22 added
#      `bench --timeline-replays`: one replay each was a lead only)
#   b  the knock-outs of v48 at M=1 (gate_up: decode, scale multiply, both, x staging, all; the
#      down: the same bits, which the scale-after downs skip), v48's check (seed 61) and [gpu] tests
# Several letters run in one call, in order (next session: `b c`, about 6 minutes on an H200).
# Steps are skipped when less time is left in the call than they need (LIMIT, default 560 s).
set -u
source "$(dirname "$0")/gpu_steps.sh"
bench() {  # bench NAME: the defaults' closing bench, all presets and M
  MOEGEMV_CACHE_DIR=/tmp/cache_close timeout 200 .gpubin/moegemv bench --seed 1 \
    --json "$out/$1.json" > "$out/$1.log" 2>&1; echo "bench rc=$?"
  grep -a 'M=1 \|PDL saving\|ceiling' "$out/$1.log" | head -30
}
timeline() {  # timeline NAME TUNE: DeepSeek-V3 M=1, the pair with PDL's CTA stamps
  echo "-- timeline $1 ($2)"
  MOEGEMV_CACHE_DIR=/tmp/cache_tl_$1 MOEGEMV_TUNE="${2:+$2,}gu_timeline=1,dc_timeline=1" timeout 100 \
    .gpubin/moegemv bench --timeline --timeline-replays "${TL_REPLAYS:-3}" --model deepseek-v3 --m 1 \
    --batches 3 > "$out/tl_$1.log" 2>&1
  grep -aE "pair|replay|wait return to last end" "$out/tl_$1.log" | cut -c1-230
}
tls() {  # DeepSeek-V3's timelines: the default down, dc_safter=1 uncapped (s) and capped (c)
  timeline n ''; timeline s dc_safter=1,dc_maxreg=0; timeline c dc_safter=1
  timeline n2 ''; timeline s2 dc_safter=1,dc_maxreg=0; timeline c2 dc_safter=1
}
[ $# -gt 0 ] || { echo "usage: gpu_s22.sh LETTER... (a, b, c; in order, in one call)" >&2; exit 2; }
for letter in "$@"; do
case $letter in
  a)
    card=$(card_name); echo "card: $card"
    case $card in
      *H200*)
        step bench 100 bench s22_h200
        step gu_ab 110 abr "n: g:gu_safter=1 g2:gu_safter=1 n2:" deepseek-v3,glm-4.5,llama4-maverick,qwen3-next \
          1,4 " gate_up |pair_pdl|ceiling" gu_h200.txt
        step v48_ab 150 abr "o@moegemv_v45: a@moegemv_s21a: n: n2: a2@moegemv_s21a: o2@moegemv_v45:" \
          deepseek-v3,glm-4.5,llama4-maverick,qwen3-next 1,4 " gate_up | down |pair_pdl|ceiling" v48_h200.txt
        ;;
      *)
        step timelines 120 tls
        step bench 100 bench s22_h100
        ;;
    esac
    ;;
  b)  # the knock-outs (wrong results, time only) on v48 at M=1, then v48's check and [gpu] tests
    card=$(card_name); echo "card: $card"
    step knock 150 abr "n: k1:gu_knock=1,dc_knock=1 k2:gu_knock=2,dc_knock=2 k3:gu_knock=3,dc_knock=3 \
k4:gu_knock=4 k15:gu_knock=15 n2:" deepseek-v3,glm-4.5,llama4-maverick 1 " gate_up | down |ceiling" knock.txt
    step check 40 check_keys b ""
    step tests 30 gpu_tests b
    ;;
  c)  # the same timelines on whatever card comes (3 stamped replays each; TL_REPLAYS)
    card=$(card_name); echo "card: $card"
    step timelines 120 tls
    ;;
  *) echo "gpu_s22.sh: no run letter $letter (a, b, c)" >&2 ;;
esac
done
echo "call done at ${SECONDS} s"
