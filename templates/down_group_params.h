// Sizes of the grouped streaming down (down_group.cuh, session 12), for the host (codegen,
// launcher) and the kernel alike.
#pragma once

#include "params.h"

namespace moegemv {

// Tokens the grouped down takes at most (its table of sums is sized for them); more use the
// token-major kernel.
constexpr int kDownGroupMaxM = 16;
// (token, expert) pairs per item: each member takes two mma columns (its act row's two K halves).
constexpr int kDownGroupMembers = 2;
// Consumer warps the grouped down aims at (the token-major kernel runs 18 on DeepSeek-V3).
constexpr int kDownGroupTargetWarps = 18;
// Rings are at most the named barriers left after 0 and 1 (ids 2..15, one per ring).
constexpr int kDownGroupMaxRings = 14;
// CTAs the codegen sizes the sums for (one per SM; the H100 and H200 have 114-132): the launcher
// checks the real count and leaves the grouped kernel unused where its sums would not fit.
constexpr int kDownGroupSizingCtas = 100;
constexpr int kDownGroupSlots = 2;  // slots per ring

MOEGEMV_HD constexpr int down_group_len(int i, int si) { return i > si ? i : si; }
MOEGEMV_HD constexpr int down_group_max_pairs(int k) { return kDownGroupMaxM * k; }
// The CTA's rows: a contiguous range of 8-row tiles, at most this many.
MOEGEMV_HD constexpr int down_group_cta_rows(int h, int ctas) { return 8 * ceil_div(h / 8, ctas); }
// Warps per ring: 2 where the token-major kernel runs 2 per segment (the sums of a ring's warps
// meet in fp32 shared-memory adds, an order-free sum only for two terms).
MOEGEMV_HD constexpr int down_group_chunks(int i, int k) { return down_stream_chunks_min(i, k); }
// ids, each head's second member, the item table (two int per item), the item count, then the
// pairs' router weights and alpha2.
MOEGEMV_HD constexpr int down_group_index_bytes(int k) {
  return ceil_div((4 * down_group_max_pairs(k) + 2 * (down_group_max_pairs(k) + kDownGroupMaxM) + 4) * 4, 16) * 16;
}
// Everything but the sums: barriers, weight slots, each ring's member act rows, scale scratch, index.
MOEGEMV_HD constexpr int down_group_static_bytes(int i, int si, int k, int rings, int chunks) {
  return stream_barrier_bytes(2 * rings * kDownGroupSlots) +
         rings * kDownGroupSlots * down_stream_slot_bytes(i, si) +
         rings * kDownGroupMembers * down_group_len(i, si) * 2 +
         stream_scratch_bytes(rings * chunks, down_stream_max_steps(i, si, chunks)) + down_group_index_bytes(k);
}
// fp32 sums per (pair, or token's shared expert) and CTA row.
MOEGEMV_HD constexpr int down_group_sum_bytes(int h, int k, int ctas) {
  return (down_group_max_pairs(k) + kDownGroupMaxM) * down_group_cta_rows(h, ctas) * 4;
}
MOEGEMV_HD constexpr int down_group_smem_bytes(int h, int i, int si, int k, int rings, int ctas) {
  return down_group_static_bytes(i, si, k, rings, down_group_chunks(i, k)) + down_group_sum_bytes(h, k, ctas);
}
// The most rings (<= kDownGroupTargetWarps consumer warps) whose shared memory fits at
// kDownGroupSizingCtas CTAs; 0 where none does or the shape cannot stream.
MOEGEMV_HD constexpr int down_group_rings(int h, int i, int si, int k) {
  const int chunks = down_group_chunks(i, k);
  if (!down_stream_fits(i, si, k, chunks) || h % 8 != 0) return 0;
  int rings = kDownGroupTargetWarps / chunks;
  if (rings > kDownGroupMaxRings) rings = kDownGroupMaxRings;
  while (rings > 0 && down_group_smem_bytes(h, i, si, k, rings, kDownGroupSizingCtas) > kMaxSmemBytes) --rings;
  return rings;
}
// From which M the grouped down runs by default (0: never). Session 12, run 2 (n g g n against the
// token-major kernel, the grouped one from M = 2 on): the down at M = 16 -7% on DeepSeek-V3 and
// -9% on GLM-4.5, at M = 8 -1..+5%, at M = 2, 4 +10..+21%; Qwen3-Next (I = 512, where the
// token-major kernel runs two 11-warp CTAs per SM) 2x slower at every M. So only where K >= 8 and
// I >= 1024, from M = 16 (M = 9..15 not measured yet).
MOEGEMV_HD constexpr int down_group_default(int i, int k) { return k >= 8 && i >= 1024 ? 16 : 0; }

}  // namespace moegemv
