#!/usr/bin/env bash
# For the session after 6, first device run (prints everything; nothing to fetch):
# 1. the first run of `bench --timeline` (built in session 6, never run on a GPU): DeepSeek-V3 at
#    M = 1 and 4, the default down (scales in registers) against dc_sahead=2 (the cp.async ring,
#    which cut PDL's gain there from 2.7 to -1 us at M=1 and ~18 to 2-9 us at M=4);
# 2. the A/B session 6 owes: the ring (default on GLM-4.5 and Llama-4) at M = 8 and 16, against
#    dc_sahead=1, order A B B A.
set -u
export MOEGEMV_CACHE_DIR=/tmp/moegemv-cache
for tune in "" ",dc_sahead=2"; do
  echo "== MOEGEMV_TUNE=gu_timeline=1,dc_timeline=1$tune"
  MOEGEMV_TUNE="gu_timeline=1,dc_timeline=1$tune" timeout 120 .gpubin/moegemv bench --timeline \
    --model deepseek-v3 --m 1,4 --batches 5 2>&1 | grep -vE "^(model|deepseek|device|kernel|PDL)" |
    grep -vE "^\s*$" | head -40
done
for v in b1:dc_sahead=1 a1: a2: b2:dc_sahead=1; do
  name=${v%%:*}; tune=${v#*:}
  MOEGEMV_TUNE="$tune" timeout 150 .gpubin/moegemv bench --model glm-4.5,llama4-maverick --m 8,16 --batches 7 \
    2>&1 | grep -E "^(glm|llama)" | grep -E " down |pair_pdl" |
    awk -v n="$name" '{printf "%s %-16s M=%-2s %-9s %8s %7s %6s\n", n, $1, $2, $3, $4, $5, $8}'
done | sort -k2,2 -k3,3 -k4,4 -k1,1
