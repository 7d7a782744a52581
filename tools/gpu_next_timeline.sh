#!/usr/bin/env bash
# For the session after 6: first run of `bench --timeline` (built in session 6, never run on a
# GPU). DeepSeek-V3 at M = 1 and 4, the default down (scales in registers) against dc_sahead=2
# (the cp.async ring, which cut PDL's gain there from 2.7 to -1 us at M=1, ~18 to 2-9 us at M=4).
# Prints each pair's timing row and the CTA timeline summaries; nothing else to fetch.
set -u
export MOEGEMV_CACHE_DIR=/tmp/moegemv-cache
for tune in "" ",dc_sahead=2"; do
  echo "== MOEGEMV_TUNE=gu_timeline=1,dc_timeline=1$tune"
  MOEGEMV_TUNE="gu_timeline=1,dc_timeline=1$tune" timeout 120 .gpubin/moegemv bench --timeline \
    --model deepseek-v3 --m 1,4 --batches 5 2>&1 | grep -vE "^(model|deepseek|device|kernel|PDL| +deepseek-v3 +[0-9])" |
    grep -vE "^\s*$" | head -40
done
