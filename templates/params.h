// Kernel parameter structs and launch shapes, shared verbatim by the host (g++) and the device
// (NVRTC), so the launch and the kernel cannot disagree. Plain C++: no toolkit headers.
#pragma once

#include "defaults.h"
#include "kernel_config.h"

namespace moegemv {

// One CTA tile is 16 weight rows: the M of mma.m16n8k16. In gate_up those are 8 up rows
// (tile rows 0..7) and the 8 gate rows of the same features (tile rows 8..15), so each lane
// holds the up and gate sums of one feature side by side for the epilogue.
constexpr int kTileRows = 16;
constexpr int kTileFeatures = 8;
// Shared-expert gate_up tiles put up to this many tokens in the mma's N columns.
constexpr int kMaxCols = 8;

// The sm_90 decode (templates/nvfp4.cuh): the dequantized weights it hands the tensor cores are
// w * 2^-kDecodeShift, and bf16x2 pair p of a word of 8 elements holds elements
// decode_pair_element(p, 0) (low half) and (p, 1) (high half).
constexpr int kDecodeShift = 13;
MOEGEMV_HD constexpr int decode_pair_element(int p, int half) { return 2 * (p & 2) + (p & 1) + 2 * half; }

struct GateUpParams {
  const unsigned short* x;    // bf16 [M, H]
  const int* ids;             // [M, K]
  const unsigned char* w1;    // [E, 2I, H/2], [up; gate] interleaved in 64-row groups
  const unsigned char* w1_sf; // e4m3, 128x4-swizzled per expert
  const float* alpha;         // [E]
  unsigned short* act;        // bf16 [M*K, I]
  const unsigned char* wsh;   // [2SI, H/2], rows [gate; up]
  const unsigned char* ssh;   // e4m3, 128x4-swizzled
  const float* gssh;          // scalar
  unsigned short* sact;       // bf16 [M, SI]
  int m;                      // tokens
  int e;                      // routed experts (bounds only)
  // The same layer's down weights, only asked of L2 (gate_up_dpre.cuh); null: not passed.
  const unsigned char* dw2;   // [E, H, I/2]
  const unsigned char* dw2_sf;// e4m3, 128x4-swizzled per expert over [H, I/16]
  const unsigned char* dwsd;  // [H, SI/2] (null without a shared expert)
  const unsigned char* dssd;  // e4m3, 128x4-swizzled over [H, SI/16]
};

struct DownParams {
  const unsigned short* act;  // bf16 [M*K, I]
  const int* ids;             // [M, K]
  const float* tw;            // [M, K]
  const unsigned char* w2;    // [E, H, I/2]
  const unsigned char* w2_sf; // e4m3, 128x4-swizzled per expert over [H, I/16]
  const float* alpha2;        // [E]
  const unsigned short* sact; // bf16 [M, SI]
  const unsigned char* wsd;   // [H, SI/2]
  const unsigned char* ssd;   // e4m3, 128x4-swizzled over [H, SI/16]
  const float* gssd;          // scalar
  unsigned short* out;        // bf16 [M, H]
  int m;
  int e;
};

struct ProbeParams {
  const unsigned int* words;    // [n] u32 of 8 e2m1 nibbles
  const unsigned short* scales; // [n] two e4m3 bytes
  int n;
  unsigned short* out;          // [n, 8] bf16, decoded with the low scale byte
  unsigned short* out_hi;       // [n, 8] bf16, decoded with the high scale byte
};

// The scale-after probe (probe.cuh safter_probe): per lane of each warp, its lo and hi weight
// words and its x group; out: the lane's 4 fp32 of D.
struct SafterProbeParams {
  const unsigned int* lo;       // [32 * warps]
  const unsigned int* hi;       // [32 * warps]
  const unsigned short* x;      // bf16 [32 * warps, 8], elements in their natural order
  float* out;                   // [32 * warps, 4]
};

struct StreamReadParams {
  const void* data;             // 16-byte aligned
  unsigned long long n16;       // number of 16-byte words
  unsigned int* sink;
};

// The shared-lines diagnostic (templates/hot_read.cuh): CTA b stages hot16 16-byte groups of
// copy b % copies of `hot` after issuing its own cold16 groups of `cold`.
struct HotReadParams {
  const void* hot;              // copies x hot16 groups, 16-byte aligned
  const void* cold;             // gridDim.x x cold16 groups
  unsigned int hot16, copies, cold16;
  unsigned int* sink;
};

// The cluster-staging probe (templates/cluster_probe.cuh): every CTA stages `groups` 16-byte
// groups of src twice and writes both to out (2 x groups per CTA).
struct ClusterProbeParams {
  const void* src;
  void* out;
  unsigned int groups;
};

// One 256-element step of one warp in the shared-memory ring (templates/ring.cuh): 32 lanes x
// (2 rows x 2 x 16 bytes of weights + 2 rows x 2 x 4 bytes of scales).
constexpr int kRingSlotBytes = 2560;
MOEGEMV_HD constexpr int ring_bytes(KernelConfig c) { return c.ring ? c.warps * c.pipe * kRingSlotBytes : 0; }

// The routed feature that logical feature l (8 per tile, tiles in order) computes with
// MOEGEMV_GU_SPAIR. A 64-feature block's up rows 0..63 and gate rows 64..127 are one 128-row scale
// atom, in which a 32-byte sector holds rows r, r + 1 (r even) of each 32-row group: the up and
// gate scales of features r, r + 1, r + 32, r + 33. Consecutive features (a tile's 4 + 4) use half
// of each sector they fetch; here logical 64a + 8q + 4s + j is feature 64a + 4q + j + 32s, so a
// tile's two sets (s) are 32 rows apart and share every sector, and tile q + 1 is 4 rows further.
MOEGEMV_HD constexpr int gate_up_spair_feature(int l) {
  return (l & ~63) | ((l >> 1) & 28) | (l & 3) | ((l & 4) << 3);
}
constexpr int kGroupMaxPairs = 256;  // more pairs: one CTA per pair, ungrouped (the scan is per CTA)
MOEGEMV_HD constexpr bool gate_up_two_tiles(int m, int k, int group_m) {
  return group_m > 0 && m >= group_m && m * k <= kGroupMaxPairs;
}
// The streaming down's block-scale feed (stream.cuh ScaleFeed) `sahead` units ahead: 1 in
// registers (one buffer of scratch per warp), 2 through a cp.async ring of 3 buffers.
MOEGEMV_HD constexpr int scale_feed_buffers(int ahead) { return ahead == 1 ? 1 : ahead + 1; }

MOEGEMV_HD constexpr int ceil_div(int a, int b) { return (a + b - 1) / b; }

// gate_up's DPRE (gate_up_dpre.cuh): share c of n of a block of `bytes` (a multiple of 16) that
// one gate_up CTA asks L2 for: 16-byte aligned pieces, one per share, covering the block once; a
// share past the block's end is empty (len 0).
struct ByteShare {
  long long off;
  unsigned int len;
};
MOEGEMV_HD constexpr ByteShare gate_up_dpre_share(long long bytes, int c, int n) {
  const long long piece = (bytes / 16 + n - 1) / n * 16, off = piece * c;
  if (off >= bytes) return ByteShare{0, 0u};
  return ByteShare{off, static_cast<unsigned int>(bytes - off < piece ? bytes - off : piece)};
}

// MOEGEMV_GU_DPREK = k: CTA c of n asks for shares c, c - n/k, c - 2n/k, ... (mod n), its own
// first, so that each share is asked by min(k, n) CTAs spread over the n.
MOEGEMV_HD constexpr int gate_up_dpre_copies(int k, int n) { return k < n ? k : n; }
MOEGEMV_HD constexpr int gate_up_dpre_copy(int c, int j, int k, int n) {
  return (c + n - j * (n / gate_up_dpre_copies(k, n))) % n;
}

// gate_up grid: routed tiles (M*K pairs x I/8 tiles, `tiles` per CTA) then shared tiles (SI/8
// tiles x token chunks of kMaxCols), one CTA each.
MOEGEMV_HD constexpr int gate_up_routed_ctas(int m, int k, int i, int tiles = 1) {
  return m * k * (i / kTileFeatures / (tiles > 1 ? tiles : 1));
}
MOEGEMV_HD constexpr int gate_up_shared_ctas(int m, int si) {
  return si == 0 ? 0 : (si / kTileFeatures) * ceil_div(m, kMaxCols);
}
MOEGEMV_HD constexpr int gate_up_partials_bytes(int warps) { return warps * kTileRows * kMaxCols * 4; }
// gu_safter=1 (split_after.cuh): a row of zeros as long as x, after the partial sums.
MOEGEMV_HD constexpr int gate_up_safter_zero_bytes(int h) { return h * 2; }
MOEGEMV_HD constexpr int gate_up_smem_bytes(int h, KernelConfig c) {
  // The partial sums of the module's widest kernel (the M = 1 kernel may have more warps).
  const int warps = c.m1_warps > c.warps ? c.m1_warps : c.warps;
  return (c.direct_b ? 0 : h * 2) + gate_up_partials_bytes(warps) + ring_bytes(c) +
         (c.safter ? gate_up_safter_zero_bytes(h) : 0);
}

// down_combine tiles: 8 output rows whose two K halves are the mma's row groups when every K
// length splits into 64-element chunks evenly (templates/down_combine.cuh), else 16 rows.
MOEGEMV_HD constexpr bool down_split_k(int i, int si, bool split) {
  return split && i % 128 == 0 && si % 128 == 0;
}
MOEGEMV_HD constexpr int down_tile_rows(int i, int si, bool split) { return down_split_k(i, si, split) ? 8 : 16; }
// down_combine work units (CTAs, or a persistent kernel's units): one per (tile, token).
MOEGEMV_HD constexpr int down_ctas(int m, int h, int tile_rows) { return m * (h / tile_rows); }
MOEGEMV_HD constexpr int down_staging_bytes(int i, int si, int k, KernelConfig c) {
  return c.direct_b ? 0 : (k * i + si) * 2;
}
MOEGEMV_HD constexpr int down_partials_bytes(int k, KernelConfig c) { return (k + 1) * c.warps * kTileRows * 4; }
MOEGEMV_HD constexpr int down_smem_bytes(int i, int si, int k, KernelConfig c) {
  // The persistent kernel double-buffers its partial sums.
  return down_staging_bytes(i, si, k, c) + (c.ring == 2 ? 2 : 1) * down_partials_bytes(k, c) + ring_bytes(c);
}
// Largest dynamic shared memory a CTA may use on sm_90 (227 KiB).
constexpr int kMaxSmemBytes = 227 * 1024;
// An SM runs with one L1/shared split for all the CTAs it holds (on sm_90: 0, 8, 16, 32, 64, 100,
// 132, 164, 196 or 228 KB of shared memory), and a CTA takes its dynamic shared memory plus 1 KB.
// Under PDL the next kernel's CTAs land on SMs that keep the previous kernel's split: after a down
// CTA that needed the 228 KB split, gate_up ran with 28 KB of L1 and took 8-10 us longer
// (session 23, CTA timelines; session 24: gate_up alone in that split, gu_carve=100, +12% on
// DeepSeek-V3). The downs keep to the 196 KB split where it costs them little.
constexpr int kSmemCtaReserveBytes = 1024;
constexpr int kSmemSplit196Bytes = 196 * 1024 - kSmemCtaReserveBytes;  // dynamic bytes per CTA
constexpr int kSmemSplit164Bytes = 164 * 1024 - kSmemCtaReserveBytes;  // (92 KB of L1)
constexpr int kMaxBlockWarps = 32;  // 1024 threads per CTA

// ---- Persistent streaming kernels (stream = 1; templates/stream.cuh) ----
// full + empty mbarriers of n slots, rounded up so the slots start 128-byte aligned.
MOEGEMV_HD constexpr int stream_barrier_bytes(int n) { return ceil_div(16 * n, 128) * 128; }

// gate_up: a unit is 8 features (their 8 up rows and 8 gate rows, two contiguous runs) of one
// pair, or of the shared expert for a window of up to `slots` tokens (mma columns); one slot per
// unit, its 128-element steps split over the consumer warps.
// Two runs, the second 64 bytes past the first (bank-conflict-free reads), 128-byte aligned slots.
MOEGEMV_HD constexpr int gate_up_stream_slot_bytes(int h) { return 16 * (h / 2) + 128; }
// (+ 1: the producer warp.)
MOEGEMV_HD constexpr bool gate_up_stream_fits(int h, int warps) {
  return h % 128 == 0 && warps <= h / 128 && warps + 1 <= kMaxBlockWarps;
}
MOEGEMV_HD constexpr int gate_up_stream_max_steps(int h, int warps) { return ceil_div(h / 128, warps); }
MOEGEMV_HD constexpr int gate_up_stream_windows(int m, int slots) { return ceil_div(m, slots); }
MOEGEMV_HD constexpr int gate_up_stream_shared_units(int m, int si, int slots) {
  return si == 0 ? 0 : gate_up_stream_windows(m, slots) * (si / kTileFeatures);
}
MOEGEMV_HD constexpr int gate_up_stream_units(int m, int k, int i, int si, int slots) {
  return gate_up_stream_shared_units(m, si, slots) + m * k * (i / kTileFeatures);
}
MOEGEMV_HD constexpr int gate_up_stream_partials_bytes(int warps) { return 2 * warps * kTileRows * kMaxCols * 4; }
// Each consumer lane parks its scales of a unit in shared memory (one u32 per step).
MOEGEMV_HD constexpr int stream_scratch_bytes(int warps, int max_steps) { return warps * 32 * max_steps * 4; }
MOEGEMV_HD constexpr int gate_up_stream_smem_bytes(int h, KernelConfig c) {
  return stream_barrier_bytes(2 * c.pipe) + c.pipe * gate_up_stream_slot_bytes(h) + c.slots * h * 2 +
         gate_up_stream_partials_bytes(c.warps) +
         stream_scratch_bytes(c.warps, gate_up_stream_max_steps(h, c.warps));
}

// down_combine: a unit is 8 output rows of one token. Each segment (routed expert j, then the
// shared expert) is one run (8 whole rows) in its own ring of slots, consumed by `chunks` warps
// splitting its steps; mma rows g and g + 8 are the two K halves of row g (split-K).
MOEGEMV_HD constexpr int down_stream_segments(int si, int k) { return k + (si > 0 ? 1 : 0); }
MOEGEMV_HD constexpr int down_stream_warps(int si, int k, int chunks) { return down_stream_segments(si, k) * chunks; }
// Warps of a streaming CTA besides its consumers: the producer, and for down_combine the combiner.
MOEGEMV_HD constexpr int stream_extra_warps(bool gate_up) { return gate_up ? 1 : 2; }
MOEGEMV_HD constexpr int down_stream_half_steps(int len) { return len / 256; }
// Session 5 (run 4): 2 warps per segment (18 consumer warps) where K >= 8 and I >= 1024 made the
// streaming down 7-9% faster on DeepSeek-V3 (M=1 36.7 -> 33.8 us, M=4 125.0 -> 113.5) and GLM-4.5
// (21.5 -> 19.9, 72.6 -> 67.4); it was 21-27% slower on Llama-4 (K = 1) and 6% on Qwen3-Next
// (I = 512, 2 steps per warp). Without the second accumulator (stream.cuh) it does not spill.
MOEGEMV_HD constexpr int down_stream_chunks_min(int i, int k) { return k >= 8 && i >= 1024 ? 2 : 1; }
// Consumer warps the default streaming down doubles its warps per segment towards (while the
// segments split into whole steps). Session 5 (run 7, with the combiner warp): Llama-4 (K = 1,
// 2 segments) with 8 warps per segment (16) instead of 4: down M=1 24.9 -> 23.4 us, M=4 71.6 ->
// 65.5; session 4 had found no gain there with the per-unit barrier. Session 18 (H200, run 1,
// n c c n, since v37's whole-unit loops): 4 warps per segment (8) are faster again: down -1.5%
// at M = 1, -2.6% M = 2, -4.0% M = 4, pair with PDL -0.5..-2.7% at M = 1..16.
constexpr int kDownStreamTargetWarps = 8;
// The consumer warps, the producer and the combiner must fit one CTA.
MOEGEMV_HD constexpr bool down_stream_fits(int i, int si, int k, int chunks) {
  return chunks >= 1 && k <= 32 && i % 256 == 0 && si % 256 == 0 && chunks <= i / 256 &&
         (si == 0 || chunks <= si / 256) &&
         down_stream_warps(si, k, chunks) + stream_extra_warps(false) <= kMaxBlockWarps;
}
MOEGEMV_HD constexpr int down_stream_max_steps(int i, int si, int chunks) {
  return ceil_div(down_stream_half_steps(i > si ? i : si), chunks);
}
MOEGEMV_HD constexpr int down_stream_units(int m, int h) { return m * (h / 8); }
// Rows 0..3 and rows 4..7 as two runs, the second 64 bytes past the first's end (stream.cuh
// kRunPad); the next slot starts right after (v52, session 24: 64 bytes less a slot, each slot
// still 16-byte aligned as the bulk copies need; it put Llama-4's down, 167056 bytes before, under
// the 164 KB split, so that the next gate_up keeps 92 KB of L1 under PDL instead of 60).
MOEGEMV_HD constexpr int down_stream_slot_bytes(int i, int si) { return 4 * (i > si ? i : si) + 64; }
// Per token: the K router weights, alpha2[e], 0 skip / 1 valid / 2 bad, and ids.
MOEGEMV_HD constexpr int down_stream_token_bytes(int k) { return ceil_div(4 * k * 4, 16) * 16; }
// The scale-after form (slot_after.cuh, dc_safter=1): act is staged x 2^kSafterActShift, so a
// product of a raw weight (e2m1 * 2^-132) and act is in units of 2^(kSafterActShift - 132); a
// unit's sum is multiplied by 2^kSafterSumShift into the combiner's units (2^-kDecodeShift).
// Products are exact fp32 normals for e2m1 * |act| in [2^(6 - S), 2^(128 - S)), S the shift: 64
// (session 21; 100 before) puts that window at [2^-58, 2^64), about centred on 1, so no bf16 act
// a model produces overflows (with 100 any |act| >= 2^28 became inf) and only products below
// 2^-58 are lost (far under fp32's last bit of any sum they join; SPEC 8's bound).
constexpr int kSafterActShift = 64;
constexpr int kSafterSumShift = 132 - kSafterActShift - kDecodeShift;  // 55
// Its row of zeros that B's unused lanes read: 256 bytes for each of a warp's steps (each lane's
// B base is its warp's first step; session 23: was one K half of the longer row, I bytes).
MOEGEMV_HD constexpr int down_safter_zero_bytes(int i, int si, int chunks) {
  return 256 * down_stream_max_steps(i, si, chunks);
}
// The streaming down's steps per warp where every warp has the same count, a compile-time
// constant (one K length, an even split), else 0. With it and the scales one unit ahead the
// scales stay in registers: no scale scratch in shared memory (session 23: the 9 KB it took on
// DeepSeek-V3 put the scale-after down over the SM's 196 KB shared-memory carveout).
MOEGEMV_HD constexpr int down_stream_held_steps(int i, int si, int chunks) {
  return (si == 0 || si == i) && down_stream_half_steps(i) % chunks == 0 ? down_stream_half_steps(i) / chunks : 0;
}
MOEGEMV_HD constexpr bool down_stream_scales_held(int i, int si, int chunks, int sahead) {
  return down_stream_held_steps(i, si, chunks) > 0 && sahead == 1;
}
// The scale feed's scratch of all consumer warps (0 where the scales are held in registers).
MOEGEMV_HD constexpr int down_stream_scale_scratch_bytes(int i, int si, int k, int chunks, int sahead) {
  return down_stream_scales_held(i, si, chunks, sahead)
             ? 0
             : scale_feed_buffers(sahead) *
                   stream_scratch_bytes(down_stream_warps(si, k, chunks), down_stream_max_steps(i, si, chunks));
}
// The streaming down's mbarriers: 8 bytes for each slot's full and empty barrier, then the
// combiner's PartialBars (32 bytes); the slots start at the next 128 bytes (session 23: 16 bytes
// a barrier before, 384 bytes more on DeepSeek-V3 and GLM-4.5); with dc_cluster (c.cluster > 1)
// one more per segment for the M = 1 kernel's shared act rows (down_cluster_act.cuh; the module's
// other kernel is launched with the same bytes).
MOEGEMV_HD constexpr int down_stream_barrier_bytes(int slots, int act_bars = 0) {
  return ceil_div(8 * 2 * slots + 32 + 8 * act_bars, 128) * 128;
}
MOEGEMV_HD constexpr int down_stream_smem_bytes(int i, int si, int k, KernelConfig c) {
  const int segs = down_stream_segments(si, k);
  return down_stream_barrier_bytes(segs * c.pipe, c.cluster > 1 ? segs : 0) +
         segs * c.pipe * down_stream_slot_bytes(i, si) +
         (k * i + si) * 2 + 2 * down_stream_warps(si, k, c.chunks) * 8 * 4 + down_stream_token_bytes(k) +
         down_stream_scale_scratch_bytes(i, si, k, c.chunks, c.sahead) +
         (c.safter ? down_safter_zero_bytes(i, si, c.chunks) : 0);
}

}  // namespace moegemv
