#include <fmt/format.h>

#include "jit/codegen.hpp"
#include "moegemv/errors.hpp"

namespace moegemv::jit {

// gu_m1split (v57, session 32; defaults.h gate_up_m1_split_default): the module's M = 1 kernel on
// the split tile, the shared expert's tile split too (shx 2, in that kernel only), at
// kGateUpM1SplitPipe steps and the split tile's CTAs/SM (6 where H <= 2048 and its grid is one
// such wave, v59), while the module's other kernel keeps the 16-row tile. It needs that other
// kernel classic (gu_split=0: else the split is everywhere), an M = 1 kernel (not gu_m1pipe=0;
// where the shape has none by default it gets one), x staged per warp (no gu_ring or gu_direct),
// no gu_safter (its split form spills at K = 1) and H % 256 == 0 (the split's 128-element
// halves). Asked for without them it is an error naming it; by default it gives way, leaving the
// config's classic M = 1 kernel as before v57. Knobs asked for alongside it (gu_shx, gu_m1pipe,
// gu_m1minb, gu_m1warps) win. v60: 4-warp CTAs at 1 step where defaults.h says so; v61: 5
// CTAs/SM for those where the grid is one wave of 5.
void settle_m1_split(const Key& key, KernelConfig& c, const M1Asked& asked,
                     const std::string& tune) {
  if (!c.m1_split) return;
  // The M = 1 grid as the launch counts it (one tile per CTA), and the kernel's warps.
  const int m1_ctas = gate_up_routed_ctas(1, key.k, key.i) + gate_up_shared_ctas(1, key.si);
  const int warps = asked.warps ? c.m1_warps : gate_up_m1_split_warps(key.h, m1_ctas, c.warps);
  const bool whole_steps = split_tile_fits(key.h, warps);
  const bool fits = !c.stream && !c.split && (c.m1_pipe > 0 || !asked.pipe) && !c.ring &&
                    !c.direct_b && !c.safter && whole_steps;
  if (!fits) {
    if (asked.split || (asked.warps && !whole_steps))
      throw ArgumentError(
          "MOEGEMV_TUNE",
          "gu_m1split=1 with gu_split=0, an M = 1 kernel (not gu_m1pipe=0), no gu_stream, "
          "gu_ring, gu_direct or gu_safter, and H % (256 * its warps (gu_m1warps)) == 0",
          fmt::format("{} for {} (split={}, m1pipe={}, stream={}, ring={}, direct={}, "
                      "safter={}, warps={})",
                      tune, key.str(), c.split, c.m1_pipe, c.stream, c.ring, c.direct_b, c.safter,
                      warps));
    c.m1_split = 0;
    return;
  }
  if (!asked.shx) c.shx = 2;
  c.m1_warps = warps == c.warps ? 0 : warps;
  if (!asked.pipe) c.m1_pipe = gate_up_m1_split_pipe(key.h, m1_ctas, warps);
  if (!asked.minb) c.m1_minb = gate_up_m1_split_min_blocks(key.h, m1_ctas, warps, c.m1_pipe);
}

}  // namespace moegemv::jit
