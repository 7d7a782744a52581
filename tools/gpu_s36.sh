#!/usr/bin/env bash
# Session 36's device plan (build: main, `make gpubin`; carry [".gpubin"]). The card is printed
# first: compare numbers only within a call.
#   p  the split M = 1 gate_up kernel with more steps in flight where it runs at 6 CTAs/SM (v59:
#      153 of 168 registers): gu_m1pipe=3 (164 registers) and 4 (168; Qwen3-Next's warps have 4
#      steps each, so every load is issued at once), no stack on the three presets (Qwen2-MoE's
#      8 CTAs/SM would spill: not run). Mirrored n p3 p4 p42 p32 n2 at M=1.
#   q  where gate_up's M = 1 CTAs land under PDL: they launch while the previous layer's down
#      holds the SMs and fill each SM that frees up to its capacity (6 at 153 registers), so some
#      SMs may get none. Timelines (with the new per-SM counts) on Qwen3-Next at M=1: n, L
#      (dc_launch=2: the down's launch_dependents at its end, so gate_up's CTAs launch onto an
#      idle GPU), m8 (gu_m1minb=8: v58's capacity); then n L L2 n2 on four presets at M=1.
#   w  the classic gate_up's waves at M = 2..4: Qwen3-Next's M=2 grid is 1344 CTAs of 2 warps at
#      10 CTAs/SM (93 registers): 1320 in the first wave, 24 in a second. a = gu_pipe=1,gu_minb=12
#      (80 registers, no stack: 12 CTAs/SM, 1584) and b = gu_minb=11 (80 registers, 24 bytes of
#      stack), mirrored n a b b2 a2 n2 on Qwen3-Next, Qwen3.5-35B, Qwen3-30B at M = 2, 3, 4; a
#      timeline of Qwen3-Next at M=2 first (the per-SM counts).
#   c  after call 6 (the M=2 tail is real: 17 SMs end ~4.5 us late; a and b lose it back in
#      their per-CTA cost): 11 CTAs/SM without stack through `gu_maxreg=88` (the M = 1 kernel
#      gets it too: M=1 not run), mirrored n c c2 n2 at M = 2, 3, 4 on the same presets, and a
#      timeline of Qwen3-Next at M=2 with it.
#   k  where Qwen3-Next's down spends its ~3.6-4.6 us after its wait at M=1 on v59: the mark
#      points dc_timeline=1..7 (1 the wait itself; templates/timeline.cuh), one stamped bench
#      each; then the placement timelines (per-SM counts) of DeepSeek-V3, GLM-4.5 and Llama-4
#      at M=1.
#   r  the read-only bounds on this card: `bench --patterns` (a streaming read and the tile
#      pattern of 6.5, 13, 74, 149, 512 MB per launch, 20 launches back to back, and the rest of
#      the diagnostic); session 5's H200 numbers put Qwen3-Next's two kernels' bytes at >= 10.3 us.
#   o  the down beside gate_up at M=1, by fewer gate_up CTAs: the two-tile kernel from M=1 (T:
#      gu_split=1,gu_group=8,gu_tiles=2,gu_tmin=1,gu_minb=3: 384 CTAs of 2 warps, 154 registers,
#      ~3 per SM), the down at 64 registers (D: dc_maxreg=64, so its 13 warps fit the register
#      file's quarters beside 6 gate_up warps), both kernels asking the same carveout (C:
#      gu_carve=70,dc_carve=70: >= 144 KB, so no SM has to drain to change it). Timeline of TDC
#      on Qwen3-Next, then n T TD TDC TDC2 n2 at M=1 on Qwen3-Next and Qwen3.5-35B.
#   x  after call 13 (at M=1 the split kernel's time follows its resident warps): 4-warp CTAs in
#      the M = 1 kernel (21 warps per SM at the same 704 CTAs; 6 CTAs/SM need <= 85 registers):
#      W = gu_warps=4,gu_m1minb=6,gu_m1pipe=1 (80 registers, 24 bytes of stack), W2 at 2 steps
#      (120 bytes), mirrored n W W2 W22 W12 n2 at M=1 on Qwen3-Next and Qwen3.5-35B.
#   v  v60 (staged: the split M = 1 kernel in 4-warp CTAs at 1 step where v59's one wave of 6
#      holds; MOEGEMV_TUNE=gu_m1warps=4 until kGateUpM1WideByDefault is set) against the default,
#      mirrored n W W2 n2 on the four Qwen presets at M = 1, 2; its check (check_keys, and the
#      Qwen3.5-35B and Qwen3-30B shapes at M = 1, 3) and the [gpu] tests with it.
#   Any other letter goes to gpu_s35.sh.
set -u
dir=$(dirname "$0")
source "$dir/gpu_steps.sh"
by_card d "p" "p" "$@"
for letter in "${letters[@]}"; do
  case $letter in
    p) step m1pipe 150 abr "n: p3:gu_m1pipe=3 p4:gu_m1pipe=4 p42:gu_m1pipe=4 p32:gu_m1pipe=3 n2:" \
         qwen3-next,qwen3.5-35b,qwen3-30b 1 " gate_up | down |pair" m1pipe.txt ;;
    q) step placement_tl 100 eval 'timeline n "" qwen3-next; timeline L dc_launch=2 qwen3-next
         timeline m8 gu_m1minb=8 qwen3-next'
       grep -a "CTAs per SM" "$out/tl_all.log" | cut -c1-300
       step placement 150 abr "n: L:dc_launch=2 L2:dc_launch=2 n2:" \
         qwen3-next,qwen3.5-35b,deepseek-v3,llama4-maverick 1 " gate_up |pair" placement.txt ;;
    w) TL_M=2 step waves_tl 40 timeline n "" qwen3-next
       grep -a "CTAs per SM" "$out/tl_all.log" | cut -c1-300
       a=gu_pipe=1,gu_minb=12 b=gu_minb=11
       step waves 300 abr "n: a:$a b:$b b2:$b a2:$a n2:" qwen3-next,qwen3.5-35b,qwen3-30b 2,3,4 \
         " gate_up |pair" waves.txt ;;
    c) TL_M=2 step cap11_tl 40 timeline c gu_maxreg=88 qwen3-next
       grep -a "CTAs per SM" "$out/tl_all.log" | cut -c1-300
       step cap11 200 abr "n: c:gu_maxreg=88 c2:gu_maxreg=88 n2:" qwen3-next,qwen3.5-35b,qwen3-30b \
         2,3,4 " gate_up |pair" cap11.txt ;;
    k) for mark in 1 2 3 5 4 6 7; do
         TL_MODE=$mark step "mark$mark" 20 timeline "k$mark" "" qwen3-next
       done
       grep -aE "^-- timeline|  down [0-9]+ CTAs|second stamp" "$out/tl_all.log" | cut -c1-250
       n0=$(wc -l < "$out/tl_all.log")
       for model in deepseek-v3 glm-4.5 llama4-maverick; do
         step "tl_$model" 30 timeline "p_$model" "" "$model"
       done
       tail -n +$((n0 + 1)) "$out/tl_all.log" \
         | grep -aE "^-- timeline|M=1 pair|CTAs per SM|first start" | cut -c1-300 ;;
    r) step patterns 150 eval 'timeout 150 .gpubin/moegemv bench --patterns \
         > "$out/patterns.log" 2>&1
         echo "patterns rc=$?"; grep -aE "ceiling|MB per launch" "$out/patterns.log"' ;;
    o) t=gu_split=1,gu_group=8,gu_tiles=2,gu_tmin=1,gu_minb=3 td=$t,dc_maxreg=64
       tdc=$td,gu_carve=70,dc_carve=70
       step overlap_tl 40 timeline tdc "$tdc" qwen3-next
       grep -aE "CTAs per SM|first start" "$out/tl_all.log" | cut -c1-300
       step overlap 200 abr "n: T:$t TD:$td TDC:$tdc TDC2:$tdc n2:" qwen3-next,qwen3.5-35b 1 \
         " gate_up | down |pair" overlap.txt ;;
    x) w=gu_warps=4,gu_m1minb=6,gu_m1pipe=1 w2=gu_warps=4,gu_m1minb=6
       step warps4 150 abr "n: W:$w W2:$w2 W22:$w2 W12:$w n2:" qwen3-next,qwen3.5-35b 1 \
         " gate_up |pair" warps4.txt ;;
    v) w=gu_m1warps=4
       step v60 120 abr "n: W:$w W2:$w n2:" qwen3-next,qwen3.5-35b,qwen3-30b,qwen2-moe 1,2 \
         " gate_up |pair" v60.txt
       step check 70 check_keys v60 "$w"
       step check_q 40 eval 'MOEGEMV_SEED=61 MOEGEMV_TUNE=$w MOEGEMV_CACHE_DIR=/tmp/cache_cq \
         timeout 60 .gpubin/moegemv check --shape 2048:512:512:8,2048:768:0:8 --m 1,3 --e 16 \
         --replays 1 > "$out/check_q_v60.log" 2>&1; echo "check_q rc=$?"
         grep -aE "^(PASS|FAIL)" "$out/check_q_v60.log" | cut -c1-100 | sort | uniq -c | head'
       MOEGEMV_TUNE=$w step tests 60 gpu_tests v60 ;;
    *) LIMIT="$(left)" bash "$dir/gpu_s35.sh" "$letter" ;;
  esac
done
echo "call done at ${SECONDS} s"
