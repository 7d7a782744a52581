#!/usr/bin/env bash
# A/B of MOEGEMV_TUNE variants in one device run (session 8 on; gpu_s7_producer.sh's fixed form).
# VARIANTS="name:TUNE ..." in the order to run (mirror it: a b b a), MODELS and MS as for bench;
# a name may carry a binary of .gpubin/ as name@binary (default moegemv: two builds in one run)
# (default qwen3-next; 1,4), ROWS a regex of the modes to keep (default gate_up, down, pairs; the
# ceiling lines are kept whatever ROWS says: session 34's filters dropped them).
# Each variant runs with its own cache; the table on stdout: per preset, M and mode, each
# variant's us per layer in run order and each variant's mean against the first's, then the
# streaming-read ceiling of each bench. Every variant's bench gets --seed ${SEED:-1} (session 18):
# the same weights, routing and inputs, so at M >= 2 all variants touch the same bytes (before,
# each bench drew its own routing: unique bytes differed by up to 10% between runs).
set -u
for v in ${VARIANTS:?}; do
  name=${v%%:*}; tune=${v#*:}; bin=moegemv
  case $name in *@*) bin=${name#*@}; name=${name%%@*} ;; esac
  # The variant's whole output, off $OUT (a call brings back only a few files).
  log=/tmp/gpu_ab_$name.log
  MOEGEMV_CACHE_DIR=/tmp/cache_ab_$name MOEGEMV_TUNE="$tune" timeout 150 .gpubin/$bin bench \
    --model "${MODELS:-qwen3-next}" --m "${MS:-1,4}" --batches "${BATCHES:-5}" --seed "${SEED:-1}" 2>&1 |
    tee "$log" | grep -E "^(qwen|deep|glm|llama|stream)" | grep -E "(${ROWS:- gate_up | down |pair})|ceiling" |
    awk -v n="$name" '{printf "%s %-16s M=%-2s %-9s %8s %6s\n", n, $1, $2, $3, $4, $8}' |
    tee -a "${OUT:-/tmp}/ab_raw.txt"  # kept as it comes, for a call cut short (session 17)
  # Session 19: a build without `bench --seed` gave no rows and no word why.
  grep -qE "^(qwen|deep|glm|llama)" "$log" || echo "gpu_ab.sh: variant $name gave no rows: $(tail -2 "$log")" >&2
done | sort -s -k2,2 -k3,3 -k4,4 | awk '{k=$2" "$3" "$4; if (k!=p) {if (line) print line; line=k; p=k} line=line"  "$1":"$5} END {print line}' |
  # Each row then gets every variant group's mean against the first group's (a group: a name and
  # its repeat, "x" and "x2" or "xb"), and the first group's own spread (session 14).
  awk '{
    out = $0; delete sum; delete cnt; delete order; delete lo; delete hi; ng = 0; base = ""
    for (i = 4; i <= NF; ++i) {
      split($i, kv, ":"); g = kv[1]; if (length(g) > 1) sub(/(2|b)$/, "", g)
      if (!(g in cnt)) { order[++ng] = g; cnt[g] = 0; lo[g] = kv[2]; hi[g] = kv[2] }
      sum[g] += kv[2]; ++cnt[g]
      if (kv[2] < lo[g]) lo[g] = kv[2]
      if (kv[2] > hi[g]) hi[g] = kv[2]
      if (base == "") base = g
    }
    if (ng > 1 && sum[base] > 0) {
      b = sum[base] / cnt[base]
      out = out sprintf("   | %s spread %.1f%%", base, 100 * (hi[base] - lo[base]) / b)
      for (j = 2; j <= ng; ++j) out = out sprintf("  %s %+.1f%%", order[j], 100 * (sum[order[j]] / cnt[order[j]] / b - 1))
    }
    print out
  }'
