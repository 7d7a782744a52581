#!/usr/bin/env bash
# Session 41's device plan (build: main, `make gpubin`; carry [".gpubin"]). The card is printed
# first: compare numbers only within a call. A call brings back at most 8 files (session 41's
# call 1 lost its bench JSON to that): everything under $OUT is packed into out.tgz at the end.
#   B  the closing bench (as gpu_s32.sh's b, which asks 170 s; this asks 80: the H200 took 65).
#   E  a shorter D for a short call: n K4 K8 K82 K42 n2 at M = 1 on Qwen3-Next and Qwen3.5-35B.
#   d  by the card: an H200 runs E B (gu_dprek's short A/B, then the closing bench), any other
#      card E K (K: the down's mark points).
#   Any other letter goes to gpu_s40.sh (b, D, K, r and the earlier sessions' letters).
set -u
dir=$(dirname "$0")
source "$dir/gpu_steps.sh"
pack() {  # everything under $out into one archive, the archive alone left there
  tar czf /tmp/out.tgz -C "$out" . && rm -rf "${out:?}"/* && mv /tmp/out.tgz "$out/out.tgz"
  ls -la "$out"
}
trap pack EXIT
by_card d "E B" "E K" "$@"
for letter in "${letters[@]}"; do
  case $letter in
    B) MOEGEMV_CACHE_DIR=/tmp/cache_close step bench 80 eval 'timeout 120 .gpubin/moegemv bench \
         --seed 1 --json "$out/s41.json" > "$out/s41.log" 2>&1; echo "bench rc=$?"
         grep -a "M=1 \|ceiling:" "$out/s41.log"' ;;
    E) step dprek 60 abr "n: K4:gu_dprek=4 K8:gu_dprek=8 K82:gu_dprek=8 K42:gu_dprek=4 n2:" \
         qwen3-next,qwen3.5-35b 1 " gate_up | down |pair" dprek.txt ;;
    *) LIMIT="$(left)" bash "$dir/gpu_s40.sh" "$letter" ;;
  esac
done
echo "call done at ${SECONDS} s"
