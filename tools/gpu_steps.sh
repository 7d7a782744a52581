# Sourced by the per-session device scripts (tools/gpu_s21.sh, gpu_s22.sh): $out made, and `step`,
# which runs a step only if the call has the seconds it needs left (LIMIT, default 560 s of the
# device's 600 s per call), so that a call cut short still brings back what ran.
out=${OUT:-/tmp/out}
mkdir -p "$out"
limit=${LIMIT:-560}
left() { echo $((limit - SECONDS)); }
step() {  # step NAME NEEDED_SECONDS COMMAND...: runs COMMAND if NEEDED_SECONDS are left
  local name=$1 need=$2; shift 2
  if [ "$(left)" -lt "$need" ]; then echo "== $name: skipped ($(left) s left, needs $need)"; return 1; fi
  echo "== $name (at ${SECONDS} s)"; "$@"; echo "== $name done (at ${SECONDS} s)"
}
