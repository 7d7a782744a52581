#!/usr/bin/env bash
# Session 39's device plan (build: main with gu_dpre, `make gpubin`; .gpubin/moegemv_v61 is the
# build before it; carry [".gpubin"]). The card is printed first: compare numbers only within a
# call.
#   P  gu_dpre (gate_up's CTAs ask L2 for their share of the down's weights: 1 at the CTA's start,
#      2 at its end) against the default, mirrored n P1 P2 P22 P12 n2 on Qwen3-Next, Qwen3.5-35B,
#      Qwen3-30B at M = 1, 2; then `moegemv check` of Qwen3-Next's shape (M = 1, 3, seed 39) with
#      the default and both forms, the lines compared (a prefetch changes no result).
#   V  v62 (the build: gu_dpre=2 by default where one token's down block is <= 8 MiB, at M = 1)
#      against v61 (.gpubin/moegemv_v61), mirrored o n n2 o2 on Qwen3-Next, Qwen3.5-35B,
#      Qwen3-30B, GLM-4.5 at M = 1, 2; then its check_keys and the [gpu] tests.
#   Q  gu_dpre=3 (form 2 without the scales) and form 2 where v62 does not take it (Qwen2-MoE: 12.9
#      MB of down a token, over the 8 MiB bound), mirrored n P2 W W2 P22 n2 at M = 1 on
#      Qwen3-Next, Qwen3.5-35B (n is form 2 there), Qwen2-MoE (n is none there).
#   T  Qwen3-Next's M = 1 timeline (CTA stamps, PDL) with v62's prefetch and without (gu_dpre=0).
#   G  the [gpu] tests (session 39 added "gate_up's down-weight hint changes no bit").
#   e  by the card, for a short call: an H200 runs b G P, any other card G T.
#   d  by the card: an H200 runs b G P O t r (b: the closing bench through gpu_s32.sh), any other
#      card G T (P ran on H100s in calls 1 and 6).
#   Any other letter goes to gpu_s38.sh.
set -u
dir=$(dirname "$0")
source "$dir/gpu_steps.sh"
by_card d "b G P O t r" "G T" "$@"
[ "$*" = e ] && by_card e "b G P" "G T" "$@"
for letter in "${letters[@]}"; do
  case $letter in
    P) step dpre 150 abr "n: P1:gu_dpre=1 P2:gu_dpre=2 P22:gu_dpre=2 P12:gu_dpre=1 n2:" \
         qwen3-next,qwen3.5-35b,qwen3-30b 1,2 " gate_up | down |pair" dpre.txt
       step check 60 check_variants 39 8 P1:gu_dpre=1 P2:gu_dpre=2 ;;
    V) step v62 150 abr "o@moegemv_v61: n: n2: o2@moegemv_v61:" \
         qwen3-next,qwen3.5-35b,qwen3-30b,glm-4.5 1,2 " gate_up | down |pair" v62.txt
       step check 70 check_keys v62 ""
       step tests 60 gpu_tests v62 ;;
    Q) step dpre3 120 abr "n: P2:gu_dpre=2 W:gu_dpre=3 W2:gu_dpre=3 P22:gu_dpre=2 n2:" \
         qwen3-next,qwen3.5-35b,qwen2-moe 1 " gate_up | down |pair" dpre3.txt ;;
    G) step tests 60 gpu_tests v62 ;;
    T) step tl_v62 40 timeline v62 "" qwen3-next
       step tl_nodpre 40 timeline nodpre gu_dpre=0 qwen3-next
       grep -aE "CTAs per SM|first start" "$out/tl_all.log" | cut -c1-300 ;;
    *) LIMIT="$(left)" bash "$dir/gpu_s38.sh" "$letter" ;;
  esac
done
echo "call done at ${SECONDS} s"
