#!/usr/bin/env bash
# Session 35's device plan (build: main, `make gpubin`, and v55's as .gpubin/moegemv_v55; carry
# [".gpubin"]). The card is printed first: compare numbers only within a call.
#   t  Qwen3-Next's pair with PDL at M=1, CTA timelines: v58's split M = 1 kernel against v57's
#      3-step one (gu_m1split=0), mirrored n o o2 n2. Why does the split kernel help the pair
#      (-2.1%) more than gate_up alone (-0.3%)? If gate_up's last CTA ends earlier relative to
#      its wait, or the down's wait returns earlier, the timeline shows it. Then m10
#      (gu_m1minb=10, 96 registers): 704 gate_up CTAs of 64 threads leave ~32K registers per SM
#      free, room for one down CTA (13 warps x 72 registers) beside them from the start, so
#      the down's first ring fill could run under gate_up: does its first CTA start earlier?
#   c  Qwen3-Next at M=1: the down's CTAs beside gate_up's from the start. The down CTA (13 warps,
#      59488 + 1024 bytes of shared memory, 72 registers) lands today only where gate_up's CTAs
#      have left an SM: 8 CTAs/SM x 64 threads x 128 registers fill the register file, and the
#      driver's carveout for gate_up alone (8 x 6 KB) leaves no 60 KB. c1 gives room: gate_up's
#      M = 1 kernel at 96 registers (gu_m1minb=10: 6 CTAs = 36864), the down capped at 64
#      (dc_maxreg=64: 26624, no spill), the 132 KB carveout for gate_up (gu_carve=58: 6 x 6 + 60
#      KB); c0 the carveout alone, m10 the registers alone. Mirrored n c1 c0 m10 m102 c02 c12 n2
#      at M = 1, 2 on Qwen3-Next and Qwen3.5-35B. (Call 6: +16..+21%, and the premise half wrong:
#      the default down already lands beside an SM's last gate_up CTAs; docs/PERF.md.)
#   d  by the card: an H200 runs b (the closing bench), g, then gpu_s34.sh's w o r z; any other
#      card g (calls 6-10 ran c t k m, v, b on H100s).
#   v  after calls 6-7 (gu_m1minb=6 on the Qwen presets): v59 (the build: the split M = 1 kernel
#      at 6 CTAs/SM where H <= 2048 and its grid is one wave of 6) against v58
#      (.gpubin/moegemv_v58), mirrored o n n2 o2 on the four Qwen presets at M = 1, 2; v59's check
#      (check_keys) and [gpu] tests; then b (the closing bench).
#   g  after call 10 (v59: the Qwen presets' M = 1 kernel faster at 153 registers than at 128,
#      with the grid one wave either way): the same on Llama-4's M = 1 kernel (4-warp CTAs, 4/SM,
#      128 registers; 2048 CTAs, ~4 waves): gu_m1minb=3 (12 warps/SM, 151 registers; Qwen2-MoE's
#      at gu_m1minb=7 compiles to 128 as at 8, so not run), mirrored n a a2 n2 at M = 1, 4.
#   Any other letter goes to gpu_s34.sh.
set -u
dir=$(dirname "$0")
source "$dir/gpu_steps.sh"
by_card d "b g w o r z" "g" "$@"
for letter in "${letters[@]}"; do
  case $letter in
    t) step qwen_timelines 140 eval 'timeline n "" qwen3-next; timeline o gu_m1split=0 qwen3-next
         timeline o2 gu_m1split=0 qwen3-next; timeline n2 "" qwen3-next
         timeline m10 gu_m1minb=10 qwen3-next
         timeline c1 gu_m1minb=10,dc_maxreg=64,gu_carve=58 qwen3-next' ;;
    c) c1=gu_m1minb=10,dc_maxreg=64,gu_carve=58 c0=gu_carve=58 m10=gu_m1minb=10
       step coresident 150 abr "n: c1:$c1 c0:$c0 m10:$m10 m102:$m10 c02:$c0 c12:$c1 n2:" \
         qwen3-next,qwen3.5-35b 1,2 " gate_up | down |pair" coresident.txt ;;
    v) step v59 120 abr "o@moegemv_v58: n: n2: o2@moegemv_v58:" \
         qwen3-next,qwen3.5-35b,qwen2-moe,qwen3-30b 1,2 " gate_up | down |pair" v59.txt
       step check 60 check_keys v59 ""
       step tests 60 gpu_tests v59 ;;
    g) step m1minb_llama 100 abr "n: a:gu_m1minb=3 a2:gu_m1minb=3 n2:" llama4-maverick 1,4 \
         " gate_up |pair" m1minb_llama.txt ;;
    *) LIMIT="$(left)" bash "$dir/gpu_s34.sh" "$letter" ;;
  esac
done
echo "call done at ${SECONDS} s"
