#!/usr/bin/env bash
# Session 37's device plan (build: main, `make gpubin`; carry [".gpubin"]). The card is printed
# first: compare numbers only within a call.
#   t  v60's placement under PDL: the timeline (gate_up's CTAs per SM) of Qwen3-Next at M=1.
#   x  one wave at M = 2..4 the way v60 got it at M=1: the general kernel on the split tile in
#      4-warp CTAs at 1 step, 6 CTAs/SM (80 registers, 16-24 bytes of stack), two 8-feature tiles
#      per routed CTA from M=2 (X: gu_split=1,gu_warps=4,gu_pipe=1,gu_minb=6,gu_tiles=2,gu_tmin=2,
#      gu_group=2: Qwen3-Next's M=2 grid ~704 CTAs against 792 slots, where the default's 1344 of
#      2 warps take 1320 slots and a tail). Its M = 1 kernel spills (624 bytes): M=1 not run.
#      Mirrored n X X2 n2 at M = 2, 3, 4 on Qwen3-Next, Qwen3.5-35B, Qwen3-30B.
#   Any other letter goes to gpu_s36.sh (b: the closing bench, through gpu_s32.sh).
set -u
dir=$(dirname "$0")
source "$dir/gpu_steps.sh"
by_card d "b" "b" "$@"
for letter in "${letters[@]}"; do
  case $letter in
    t) step v60_tl 40 timeline n "" qwen3-next
       grep -aE "CTAs per SM|first start" "$out/tl_all.log" | cut -c1-300 ;;
    x) x=gu_split=1,gu_warps=4,gu_pipe=1,gu_minb=6,gu_tiles=2,gu_tmin=2,gu_group=2
       step wave24 220 abr "n: X:$x X2:$x n2:" qwen3-next,qwen3.5-35b,qwen3-30b 2,3,4 \
         " gate_up |pair" wave24.txt ;;
    *) LIMIT="$(left)" bash "$dir/gpu_s36.sh" "$letter" ;;
  esac
done
echo "call done at ${SECONDS} s"
