// The scale-after candidates' conditions: where each can run, and the error naming it where it
// is asked for with a config it cannot take.
#include <fmt/format.h>

#include "jit/codegen.hpp"
#include "moegemv/errors.hpp"

namespace moegemv::jit {

// dc_safter=1 (slot_after.cuh) takes the scales in registers with a compile-time step count and
// the per-warp act staging (the segment's warps scale their own act row).
void check_down_safter(const Key& key, const KernelConfig& c) {
  const bool even = (key.si == 0 || key.si == key.i) && down_stream_half_steps(key.i) % c.chunks == 0;
  const bool warp_stage = c.wstage == 1 ? c.chunks == 1 : c.wstage == 2;
  if (c.sahead != 1 || !even || !warp_stage)
    throw ArgumentError("MOEGEMV_TUNE",
                        "dc_safter=1 with dc_sahead=1, dc_wstage 1|2 and an even step split (SI = 0 or "
                        "SI = I, steps divisible by dc_chunks)",
                        key.str());
}

// gu_safter=1 (tile_after.cuh, split_after.cuh) is a form of the classic kernel's routed tiles
// (the split tile where the config has it, else the 16-row tile in whole 128-element steps):
// without them (the streaming gate_up, H % 128 != 0) it does not apply, as other tile knobs; with
// them it needs each warp to stage its own slice of x (gu_stage=1, no gu_direct, no gu_ring),
// which it scales. The grouped pairs (from M = gu_group on) keep the scale multiply, as do the
// shared expert's tiles unless gu_shx stages their x.
void settle_gate_up_safter(const Key& key, KernelConfig& c) {
  if (c.stream || key.h % 128 != 0) {
    c.safter = 0;
    return;
  }
  if (c.stage != 1 || c.direct_b || c.ring)
    throw ArgumentError("MOEGEMV_TUNE",
                        "gu_safter=1 with gu_stage=1, gu_direct=0 and gu_ring=0 (each warp stages its own x)",
                        fmt::format("{} with gu_stage={}, gu_direct={}, gu_ring={}", key.str(), c.stage,
                                    c.direct_b, c.ring));
}

}  // namespace moegemv::jit
