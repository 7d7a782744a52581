#!/usr/bin/env bash
# Session 4's last run: the check on the H <= 2048 shapes (2-warp gate_up default), the default
# benchmark of the four presets plus Qwen3-30B (M = 1, 4), and 2-warp gate_up CTAs on the wide
# presets. JSON and logs in $OUT; a table last.
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
export MOEGEMV_CACHE_DIR=/tmp/moegemv-cache
bin=.gpubin
timeout 200 $bin/moegemv check --shape 2048:512:512:10 --shape 2048:768:0:8 --shape 2048:1408:5632:4 \
  --shape 7168:2048:2048:8 --m 1,3,16 --e 16 --replays 3 > "$out/check.log" 2>&1
echo "check rc=$?"
tools/check_summary.sh "$out/check.log"
run() {  # NAME TUNE MODELS
  MOEGEMV_TUNE=$2 timeout 150 $bin/moegemv bench --model "$3" --m 1,4 --json "$out/bench_$1.json" > "$out/bench_$1.log" 2>&1
  grep -E "^(deepseek|qwen|glm|llama)" "$out/bench_$1.log" | grep -E "gate_up|pair_pdl" | awk -v n="$1" '{printf "%-4s %s\n", n, $0}' | cut -c1-100
}
run def "" deepseek-v3,qwen3-next,glm-4.5,llama4-maverick,qwen3-30b
run w2s "gu_warps=2" deepseek-v3,glm-4.5
run w2 "gu_warps=2,gu_split=0" deepseek-v3,glm-4.5,llama4-maverick
grep -h "ceiling:" "$out"/bench_*.log
tar czf "$out/logs.tgz" -C "$out" --exclude logs.tgz --exclude "*.json" . 2>/dev/null; rm -f "$out"/*.log
