// The scale-after candidates' conditions: where each can run, and the error naming it where it
// is asked for with a config it cannot take.
#include <algorithm>

#include <fmt/format.h>

#include "jit/codegen.hpp"
#include "moegemv/errors.hpp"

namespace moegemv::jit {

// dc_safter=1 (slot_after.cuh) takes the scales in registers with a compile-time step count and
// the per-warp act staging (the segment's warps scale their own act row).
bool down_safter_applies(const Key& key, const KernelConfig& c) {
  const bool even = (key.si == 0 || key.si == key.i) && down_stream_half_steps(key.i) % c.chunks == 0;
  const bool warp_stage = c.wstage == 1 ? c.chunks == 1 : c.wstage == 2;
  return c.sahead == 1 && even && warp_stage;
}

void check_down_safter(const Key& key, const KernelConfig& c) {
  if (!down_safter_applies(key, c))
    throw ArgumentError("MOEGEMV_TUNE",
                        "dc_safter=1 with dc_sahead=1, dc_wstage 1|2 and an even step split (SI = 0 or "
                        "SI = I, steps divisible by dc_chunks)",
                        key.str());
}

// dc_safter=1's register cap (session 21): the form's streaming down took 96 registers on
// DeepSeek-V3 (74 without it) and 92 on GLM-4.5 (70). GLM-4.5's 640-thread down CTA then leaves
// less than a gate_up CTA's registers (128 threads x 128) free on its SM, where it left room
// before, so under PDL no gate_up CTA runs beside it (DeepSeek-V3's at 74 leaves none either).
// Unless dc_maxreg is given, the form's down is capped so that one gate_up CTA of the same shape
// (its launch bounds: 65536 / CTAs per SM registers, or its own cap) fits beside it. Registers
// are not the only bound: since v50 (session 23) GLM-4.5's down is in the 196 KB shared-memory
// split, which leaves no room for a gate_up CTA (timelines: none starts beside it), so its cap
// no longer buys that; `dc_maxreg=0` there is the measurement to make.
int down_safter_register_cap(const KernelConfig& gate_up, const KernelConfig& down) {
  const int gate_up_threads = 32 * (gate_up.warps + (gate_up.stream ? stream_extra_warps(true) : 0));
  const int gate_up_regs = gate_up.maxreg ? gate_up_threads * gate_up.maxreg
                                          : kSmRegisters / std::max(gate_up.min_blocks, 1);
  const int threads = 32 * (down.warps + stream_extra_warps(false));
  const int cap = (kSmRegisters - gate_up_regs) / threads / 8 * 8;
  return cap < kSmRegisters / threads ? std::min(cap, 255) : 0;
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
