set -u
export MOEGEMV_CACHE_DIR=/tmp/moegemv-cache
MOEGEMV_TUNE="gu_timeline=1,dc_timeline=1" timeout 200 .gpubin/moegemv bench --timeline \
    --model qwen3-next,glm-4.5,llama4-maverick --m 1,2 --batches 5 2>&1 | grep -vE "^(model|device|kernel|PDL)" | grep -vE "^\s*$" | head -80
