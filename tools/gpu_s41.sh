#!/usr/bin/env bash
# Session 41's device plan (build: main, `make gpubin`; carry [".gpubin"]). The card is printed
# first: compare numbers only within a call. A call brings back at most 8 files (session 41's
# call 1 lost its bench JSON to that): everything under $OUT is packed into out.tgz at the end.
#   d  by the card: an H200 runs b D K (the closing bench, gu_dprek's A/B, the down's mark
#      points), any other card D K r.
#   Any other letter goes to gpu_s40.sh (b, D, K, r and the earlier sessions' letters).
set -u
dir=$(dirname "$0")
source "$dir/gpu_steps.sh"
pack() {  # everything under $out into one archive, the archive alone left there
  tar czf /tmp/out.tgz -C "$out" . && rm -rf "${out:?}"/* && mv /tmp/out.tgz "$out/out.tgz"
  ls -la "$out"
}
trap pack EXIT
by_card d "b D K" "D K r" "$@"
for letter in "${letters[@]}"; do
  LIMIT="$(left)" bash "$dir/gpu_s40.sh" "$letter"
done
echo "call done at ${SECONDS} s"
