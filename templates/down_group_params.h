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
// CTAs the codegen sizes the y table for (one per SM; the H100 and H200 have 114-132): the
// launcher checks the real count and leaves the grouped kernel unused where it would not fit.
constexpr int kDownGroupSizingCtas = 114;
constexpr int kDownGroupSlots = 2;  // slots per ring

MOEGEMV_HD constexpr int down_group_len(int i, int si) { return i > si ? i : si; }
MOEGEMV_HD constexpr int down_group_max_pairs(int k) { return kDownGroupMaxM * k; }
// The CTA's rows: a contiguous range of 8-row tiles, at most this many.
MOEGEMV_HD constexpr int down_group_cta_rows(int h, int ctas) { return 8 * ceil_div(h / 8, ctas); }
// Warps per ring: 2 where the token-major kernel runs 2 per segment (a ring's second warp hands
// its partial sums to the first, so more would need a longer hand-over).
MOEGEMV_HD constexpr int down_group_chunks(int i, int k) { return down_stream_chunks_min(i, k); }
// ids, each head's second member, the item table (two int per item), the item count, then the
// pairs' router weights and alpha2.
MOEGEMV_HD constexpr int down_group_index_bytes(int k) {
  return ceil_div((4 * down_group_max_pairs(k) + 2 * (down_group_max_pairs(k) + kDownGroupMaxM) + 4) * 4, 16) * 16;
}
// Everything but the y table: barriers, weight slots, each ring's member act rows, scale scratch,
// index, each ring's double-buffered hand-over of partial sums.
MOEGEMV_HD constexpr int down_group_static_bytes(int i, int si, int k, int rings, int chunks) {
  return stream_barrier_bytes(2 * rings * kDownGroupSlots) +
         rings * kDownGroupSlots * down_stream_slot_bytes(i, si) +
         rings * kDownGroupMembers * down_group_len(i, si) * 2 +
         stream_scratch_bytes(rings * chunks, down_stream_max_steps(i, si, chunks)) + down_group_index_bytes(k) +
         rings * 2 * kDownGroupMembers * 8 * 4;
}
// bf16 y per (pair, or token's shared expert) and CTA row.
MOEGEMV_HD constexpr int down_group_sum_bytes(int h, int k, int ctas) {
  return ceil_div((down_group_max_pairs(k) + kDownGroupMaxM) * down_group_cta_rows(h, ctas) * 2, 16) * 16;
}
MOEGEMV_HD constexpr int down_group_smem_bytes(int h, int i, int si, int k, int rings, int ctas) {
  return down_group_static_bytes(i, si, k, rings, down_group_chunks(i, k)) + down_group_sum_bytes(h, k, ctas);
}
// The most rings (<= kDownGroupTargetWarps consumer warps) whose shared memory fits `limit` bytes
// at kDownGroupSizingCtas CTAs; 0 where none does or the shape cannot stream.
MOEGEMV_HD constexpr int down_group_rings_within(int h, int i, int si, int k, int limit) {
  const int chunks = down_group_chunks(i, k);
  if (!down_stream_fits(i, si, k, chunks) || h % 8 != 0) return 0;
  int rings = kDownGroupTargetWarps / chunks;
  if (rings > kDownGroupMaxRings) rings = kDownGroupMaxRings;
  while (rings > 0 && down_group_smem_bytes(h, i, si, k, rings, kDownGroupSizingCtas) > limit) --rings;
  return rings;
}
// The most rings that fit at all (the bound of dc_rings).
MOEGEMV_HD constexpr int down_group_rings_max(int h, int i, int si, int k) {
  return down_group_rings_within(h, i, si, k, kMaxSmemBytes);
}
// The default: the most rings that keep the SM in the 196 KB split (params.h), else the most that
// fit. Session 24 (H100, DeepSeek-V3 M = 16, n r6 r7 r7 r6 n): 6 rings (175632 bytes at 132 CTAs)
// against 8 (227728, the 228 KB split): pair with PDL -4.9% (958 / 967 us against 1019 / 1005),
// without PDL +0.4%, the down alone -0.1%; 7 rings (201744, still 228 KB) -1.6%. GLM-4.5's 9 rings
// already fit (191632 bytes).
MOEGEMV_HD constexpr int down_group_rings(int h, int i, int si, int k) {
  const int rings = down_group_rings_within(h, i, si, k, kSmemSplit196Bytes);
  return rings > 0 ? rings : down_group_rings_max(h, i, si, k);
}
// From which M the grouped down runs by default (0: never), and its producer (one lane per ring,
// or lane 0 in ring order). Session 12, against the token-major kernel in the same run (docs/PERF.md):
// DeepSeek-V3 (I = 2048) in ring order, from M = 16: v35 the down -1..-7.6% (runs 2, 3, 7, 9), v36
// -0.7..-3.7% (runs 9, 10), pair with PDL -2..-3% and +1% (run 9); at M = 12 the down -1..-4% but
// the pair with PDL +0.4..+1.3% (run 10), at M = 8 +5%. GLM-4.5 (I = 1536) one lane per ring,
// from M = 8: v36 pair with PDL -5.5..-6.5% at M = 8, -8% at M = 12, -10% at M = 16 (runs 9, 10).
// Below M = 8 slower on both (v35: +7..+21%, runs 2, 5). Qwen3-Next (I = 512) 1.4-2.3x slower at
// every M (its items are 2 units per CTA: staging each item's act rows dominates): never there.
MOEGEMV_HD constexpr int down_group_default(int i, int k) {
  return k >= 8 && i >= 1024 ? (i >= 2048 ? 16 : 8) : 0;
}
MOEGEMV_HD constexpr bool down_group_lanes_default(int i) { return i < 2048; }

}  // namespace moegemv
