#!/usr/bin/env bash
# Session 44's device plan (build: main, `make gpubin`; carry [".gpubin"]). The card is printed
# first: compare numbers only within a call; everything under $OUT is packed into out.tgz.
#   H  `bench --hot`: many CTAs staging the same activation lines against each its own copy, and
#      one read shared by a cluster's CTAs (Qwen3-Next's M = 1 shapes; ~15 s).
#   A  the down's act staging knocked out (`dc_knock=512`, wrong results) against the default,
#      mirrored n X X2 n2, at M = 1 on Qwen3-Next and Qwen3.5-35B: what reading gate_up's output
#      after the PDL wait costs the pair. (H and A were session 43's gpu_s43.sh, never run; this
#      script replaced it.)
#   C  dc_cluster (new, session 44; templates/down_cluster_act.cuh): first its staging alone (the
#      [gpu] test of templates/cluster_probe.cuh), then its numbers, `moegemv
#      check` with dc_cluster=4 and =2 on the four presets' shapes at M = 1, 3, 16 (the M = 1
#      kernel runs at M = 1) and Qwen3-Next's check lines against the default's (C = 2, 4, 8);
#      then, mirrored n C4 C2 C8 n2 at M = 1 on Qwen3-Next and Qwen3.5-35B, its time.
#   B  the closing bench (as gpu_s41.sh's B), its JSON.
#   a  H A B C on any card (C last: a kernel that hangs would cost only its own steps).
#   Any other letter goes to gpu_s40.sh (b, D, K, r and the earlier sessions' letters).
set -u
dir=$(dirname "$0")
source "$dir/gpu_steps.sh"
trap pack_out EXIT
by_card a "H A B C" "H A B C" "$@"
for letter in "${letters[@]}"; do
  case $letter in
    H) step hot 30 eval "timeout 60 .gpubin/moegemv bench --hot > $out/hot.txt 2>&1; cat $out/hot.txt" ;;
    A) step knock 50 abr "n: X:dc_knock=512 X2:dc_knock=512 n2:" qwen3-next,qwen3.5-35b 1 \
         " gate_up | down |pair" knock.txt ;;
    C) step cluster_probe 20 eval "timeout 60 .gpubin/test_runtime '*staged over a cluster*' \
         > $out/cluster_probe.log 2>&1; echo probe rc=\$?; tail -3 $out/cluster_probe.log"
       # A staging that does not land (or hangs) would only burn the call's time in the rest.
       if ! grep -q "All tests passed" "$out/cluster_probe.log" 2>/dev/null; then
         echo "C: the probe did not pass; the rest of C skipped"; continue
       fi
       step cluster_check 60 check_keys cl4 dc_cluster=4
       step cluster_check2 60 check_keys cl2 dc_cluster=2
       step cluster_lines 40 check_variants 7 3 c4:dc_cluster=4 c2:dc_cluster=2 c8:dc_cluster=8
       step cluster_ab 70 abr "n: C4:dc_cluster=4 C2:dc_cluster=2 C8:dc_cluster=8 n2:" \
         qwen3-next,qwen3.5-35b 1 " gate_up | down |pair" cluster.txt ;;
    B) closing_bench s44 80 120 ;;
    *) LIMIT="$(left)" bash "$dir/gpu_s40.sh" "$letter" ;;
  esac
done
echo "call done at ${SECONDS} s"
