// The persistent streaming kernels' configs (config stream = 1): the fields a tune leaves unset,
// and the shared memory a config takes.
#include "jit/codegen.hpp"

#include <fmt/format.h>

#include "moegemv/errors.hpp"
#include "templates/params.h"

namespace moegemv::jit {

int config_smem(const Key& key, const KernelConfig& c) {
  if (key.kind == Kind::kGateUp)
    return c.stream ? gate_up_stream_smem_bytes(key.h, c) : gate_up_smem_bytes(key.h, c);
  return c.stream ? down_stream_smem_bytes(key.i, key.si, key.k, c)
                  : down_smem_bytes(key.i, key.si, key.k, c);
}

// v55 (session 27): a streaming down whose ring of at least 2 slots per segment fits the 164 KB
// split takes the deepest that does, so that the next gate_up keeps 92 KB of L1 under PDL (60 in
// the 196 KB split). GLM-4.5's down (3 slots -> 2; the only preset it changes): its pair with PDL
// -1.7 / -1.3 / -0.2% at M = 1 / 4 / 16 on an H100, though the down alone is 3% slower at M=1
// (docs/PERF.md, Session 27); Llama-4's down went under it by its slot size (v52).
static int down_pipe_within_164(const Key& key, KernelConfig c) {
  const int deepest = c.pipe;
  while (c.pipe > 2 && config_smem(key, c) > kSmemSplit164Bytes) --c.pipe;
  return config_smem(key, c) <= kSmemSplit164Bytes ? c.pipe : deepest;
}

// Fills the streaming config's unset fields: gate_up 8 consumer warps; down enough warps per
// segment (chunks) for kDownStreamTargetWarps consumer warps, at least down_stream_chunks_min;
// the deepest ring (<= 4 slots) that fits, then as many x tokens (<= 8) as the rest of shared
// memory holds. False when the shape cannot take it.
bool complete_stream_config(const Key& key, KernelConfig& c, bool pipe_set, bool warps_set) {
  const bool gu = key.kind == Kind::kGateUp;
  if (gu && !warps_set) c.warps = 8;
  if (!gu && c.chunks == 0) {
    c.chunks = down_stream_chunks_min(key.i, key.k);
    if (!down_stream_fits(key.i, key.si, key.k, c.chunks)) c.chunks = 1;
    while (down_stream_warps(key.si, key.k, c.chunks) < kDownStreamTargetWarps &&
           down_stream_fits(key.i, key.si, key.k, 2 * c.chunks))
      c.chunks *= 2;
  }
  const bool fits = gu ? gate_up_stream_fits(key.h, c.warps)
                       : down_stream_fits(key.i, key.si, key.k, c.chunks);
  if (!fits) return false;
  if (!gu) {
    c.warps = down_stream_warps(key.si, key.k, c.chunks);
    // Per-warp staging: 1 needs one warp per segment; 2 a barrier id per segment (down_stream.cuh).
    const int segments = down_stream_segments(key.si, key.k);
    if (c.wstage == kDownWarpStageAuto)
      c.wstage = c.chunks == 1 ? 1 : segments <= kDownWarpStageMaxSegments ? 2 : 0;
    if (c.chunks != 1 && c.wstage == 1) c.wstage = 0;
    if (c.wstage == 2 && segments > kDownWarpStageMaxSegments)
      throw ArgumentError("MOEGEMV_TUNE",
                          fmt::format("dc_wstage=2 where the down has at most {} segments",
                                      kDownWarpStageMaxSegments),
                          key.str());
  }
  const bool slots_auto = gu && c.slots == 0;
  if (slots_auto) c.slots = 1;
  if (!pipe_set && !gu && c.maxreg == kDownTwoPerSmRegs &&
      down_two_per_sm_default(key.i, key.si, key.k)) {
    c.pipe = 2;  // two CTAs per SM: a 2-slot ring each (defaults.h)
  } else if (!pipe_set) {
    c.pipe = 4;
    while (c.pipe > 2 && config_smem(key, c) > kMaxSmemBytes) --c.pipe;
    if (!gu) c.pipe = down_pipe_within_164(key, c);
  }
  for (KernelConfig more = c; slots_auto && more.slots < kMaxCols;) {
    ++more.slots;
    if (config_smem(key, more) > kMaxSmemBytes) break;
    c.slots = more.slots;
  }
  return config_smem(key, c) <= kMaxSmemBytes;
}

}  // namespace moegemv::jit
