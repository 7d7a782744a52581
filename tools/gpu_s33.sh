#!/usr/bin/env bash
# Session 33's device plan (build: main, `make gpubin`, and v55's as .gpubin/moegemv_v55; carry
# [".gpubin"]). The card is printed first: compare numbers only within a call.
#   y  call 2's M=16 question, split in two. Llama-4's pairs at M=16 took 477 us with `--m 16` or
#      `--m 8,16` (Llama-4 first in the process) and 557 us at the end of the full bench, its alone
#      rows equal in both, while the card sat at its 700 W power cap (reason 0x4) in every burst:
#      y1, Llama-4 alone over every M (the burst before its M=16 rows as long as in the full bench,
#      no preset before it); y2, every preset with `--m 16` alone (the presets before it, no burst).
#      The card's clocks, power and reasons every 0.1 s beside them (smi_y.csv).
#   q  Qwen3-Next (the one target the H100 misses): its M = 1 kernel on the split tile with the
#      shared expert's split too (gu_m1split=1: 2 steps, as v57's Llama-4; p: 3 steps), mirrored
#      n s p p2 s2 n2 at M = 1, 4. Both compile for sm_90 at 128 registers, no local memory.
#   z  the bench with `--settle-ms 1500` (each row timed after ~1.5 s of its own replays, at
#      sustained load's power state) on Llama-4 and DeepSeek-V3, every M, clocks logged
#      (smi_z.csv): against y1 and the full bench, are the M=16 pairs at ~560 us for Llama-4 and the
#      M = 1 rows within ~2% of the unsettled ones? Written after call 14, not yet run.
#   d  by the card: an H200 runs session 32's h letters (b w o r) then z; any other card z, q, b
#      (y, answered in call 14, no longer in d).
#   Any other letter goes to gpu_s32.sh.
set -u
dir=$(dirname "$0")
source "$dir/gpu_steps.sh"
by_card d "b w o r z" "z q b" "$@"
for letter in "${letters[@]}"; do
  case $letter in
    y) smi_log "$out/smi_y.csv" 100
       step y1 40 eval 'timeout 80 .gpubin/moegemv bench --seed 1 --model llama4-maverick \
         > "$out/y1.log" 2>&1; echo "y1 rc=$?"; grep -a "M=16 \|ceiling:" "$out/y1.log"'
       step y2 60 eval 'timeout 100 .gpubin/moegemv bench --seed 1 --m 16 > "$out/y2.log" 2>&1
         echo "y2 rc=$?"; grep -a "M=16 pair\|ceiling:" "$out/y2.log"'
       kill "$smi" 2>/dev/null ;;
    z) smi_log "$out/smi_z.csv" 100
       step z 150 eval 'timeout 240 .gpubin/moegemv bench --seed 1 --settle-ms 1500 --model \
         llama4-maverick,deepseek-v3 --json "$out/z.json" > "$out/z.log" 2>&1; echo "z rc=$?"
         grep -a "M=1 pair\|M=16 pair\|ceiling:\|settled" "$out/z.log"'
       kill "$smi" 2>/dev/null ;;
    q) s=gu_m1split=1 p=gu_m1split=1,gu_m1pipe=3
       step qwen_m1split 150 abr "n: s:$s p:$p p2:$p s2:$s n2:" qwen3-next 1,4 \
         " gate_up | down |pair|ceiling" qwen_m1split.txt
       step check_q 30 check_keys q gu_m1split=1 ;;
    *) LIMIT="$(left)" bash "$dir/gpu_s32.sh" "$letter" ;;
  esac
done
echo "call done at ${SECONDS} s"
