#!/usr/bin/env bash
# Session 34's device plan (build: main, `make gpubin`, and v55's as .gpubin/moegemv_v55; carry
# [".gpubin"]). The card is printed first: compare numbers only within a call.
#   l  DeepSeek-V3's M=16 pair with PDL, slower than without on H100s (session 33 call 14: 1029.02
#      against 991.35 us): the grouped down's launch_dependents moved to its end (dc_launch=2),
#      mirrored n l l2 n2 at M = 16. Session 12 (run 8, an H200) measured that move -5..-6% on
#      the pair with PDL and left it off by SPEC 7's "as early as the kernel allows": is that
#      still the cause (the next gate_up's CTAs resident beside the down, waiting)?
#   m  after v58 (call 16): the split M = 1 kernel's neighbours on Qwen3-Next and Qwen3.5-35B at
#      M = 1, mirrored: the shared expert's tile in it unsplit (x0: gu_shx=0; x1: gu_shx=1; 127
#      registers each), 6 CTAs/SM (m6: gu_m1minb=6, 153 registers: room for a down CTA beside)
#      and 10 (m10: 96 registers, 32 bytes of stack).
#   k  DeepSeek-V3's M=16 pair with PDL, bimodal (calls 10, 17: batch spread 155-204 us against
#      23 without PDL): every preset at `--m 16`, 15 batches, each row's batches from the JSON's
#      batch_us (written after call 17), clocks logged.
#   d  by the card: an H200 runs gpu_s33.sh's b w o r z, then l; any other card z q l b.
#   Any other letter goes to gpu_s33.sh.
set -u
dir=$(dirname "$0")
source "$dir/gpu_steps.sh"
by_card d "b w o r z l" "z q l b" "$@"
for letter in "${letters[@]}"; do
  case $letter in
    l) step dsv3_launch 110 abr "n: l:dc_launch=2 l2:dc_launch=2 n2:" deepseek-v3 16 "pair" \
         dsv3_launch.txt ;;
    m) step m1_neighbours 120 abr "n: x0:gu_shx=0 x1:gu_shx=1 m6:gu_m1minb=6 m10:gu_m1minb=10 \
         m102:gu_m1minb=10 m62:gu_m1minb=6 x12:gu_shx=1 x02:gu_shx=0 n2:" qwen3-next,qwen3.5-35b 1 \
         " gate_up |pair_pdl|ceiling" m1_neighbours.txt ;;
    k) smi_log "$out/smi_k.csv" 100
       step m16_batches 90 eval 'timeout 150 .gpubin/moegemv bench --seed 1 --m 16 --batches 15 \
         --json "$out/k.json" > "$out/k.log" 2>&1; echo "k rc=$?"
         python3 tools/bench_batches.py "$out/k.json" pair'
       kill "$smi" 2>/dev/null ;;
    *) LIMIT="$(left)" bash "$dir/gpu_s33.sh" "$letter" ;;
  esac
done
echo "call done at ${SECONDS} s"
