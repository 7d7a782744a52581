#!/usr/bin/env bash
# Summary of a `moegemv check` log for the device scripts: per-output verdict counts (with
# over-bound / nan / unwritten), the lowest bit-identical share, and the non-shape lines
# (decode probe, capture, PDL and graph replay). Usage: tools/check_summary.sh LOG
log=$1
grep -aoE "(act|sact|out) (PASS|FAIL): n=[0-9]+ bit-identical=[0-9]+ \([0-9.]+%\) over-bound=[0-9]+ nan=[0-9]+ unwritten=[0-9]+" \
  "$log" | awk '{print "  " $1, $2, $6, $7, $8}' | sort | uniq -c | sort -rn | head -12
grep -aoE "bit-identical=[0-9]+ \([0-9.]+%\)" "$log" | grep -oE "[0-9.]+%" | sort -n | head -1 |
  sed 's/^/  lowest bit-identical: /'
grep -aE "^(PASS|FAIL)" "$log" | grep -vE "M=[0-9]+ E=" | cut -c1-150
