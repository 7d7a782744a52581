#!/usr/bin/env bash
# Session 7, run 4: the streaming down's producer. Qwen3-Next's down waits on its slots (ncu,
# run 3: 18% of samples at the full barrier) with 44 bulk copies per CTA. Variants in one run,
# order a n r l b b l r n a: a = the build before (moegemv_a), n = this build's default,
# r = dc_runs=1 (one copy per slot), l = dc_lanes=1 (one producer lane per segment), b = both.
# VARIANTS="name:MOEGEMV_TUNE ..." replaces the list (name a runs .gpubin/moegemv_a); the table
# goes to stdout: per preset, M and mode, each variant's us per layer in run order.
set -u
for v in ${VARIANTS:-a: n: r:dc_runs=1 l:dc_lanes=1 b:dc_runs=1,dc_lanes=1 b:dc_runs=1,dc_lanes=1 l:dc_lanes=1 r:dc_runs=1 n: a:}; do
  name=${v%%:*}; tune=${v#*:}; bin=moegemv; [ "$name" = a ] && bin=moegemv_a
  MOEGEMV_CACHE_DIR=/tmp/cache_$bin MOEGEMV_TUNE="$tune" timeout 100 .gpubin/$bin bench \
    --model qwen3-next,deepseek-v3,glm-4.5,llama4-maverick --m 1,4 --batches 5 2>&1 |
    grep -E "^(qwen|deep|glm|llama|stream)" | grep -E " down |pair|ceiling" |
    awk -v n="$name" '{printf "%s %-16s M=%-2s %-9s %8s %6s\n", n, $1, $2, $3, $4, $8}'
done | sort -k2,2 -k3,3 -k4,4 -k1,1 | awk '{k=$2" "$3" "$4; if (k!=p) {if (line) print line; line=k; p=k} line=line"  "$1":"$5} END {print line}'
