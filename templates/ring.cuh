// The same tile dot product as TileDot (tile.cuh), with the weights and scales of kPipe steps
// held in a per-warp shared-memory ring filled by cp.async instead of in registers, and wider
// steps: 256 elements, so each row's whole 128-byte line is requested at once (lane t: bytes
// 16t and 64 + 16t, i.e. two of TileDot's 128-element steps in one slot; lanes whose 32 bytes were
// contiguous made their staged-B reads 4-way bank conflicts and ran 1.5x slower, session 2).
//
// Why (docs/PERF.md, session 2): profiled on the H200, the register ring left gate_up latency
// bound (43% of scheduler cycles with no eligible warp, most stalls on the weight loads; the
// register file capped the bytes in flight at ~34 KB per SM). And the tiles' read pattern alone
// (`moegemv bench --patterns`, no arithmetic) streams at ~3.4-3.8 TB/s with 64 bytes per row per
// warp step but ~4.4-4.5 TB/s with 128: whole lines per row per step suit HBM better.
//
// Each lane copies exactly the bytes it later reads (its 2 x 16 bytes of each of its two rows and
// the scale u32s holding its k-blocks), so no lane waits on another: cp.async.wait_group alone
// orders the copy before the read. One commit group per step (empty past the end), so "at most
// kPipe - 1 groups pending" means "this step has landed".
#pragma once

#include "params.h"
#include "tile.cuh"

namespace moegemv {

constexpr int kWideStep = 256;  // elements per row per ring step

// One ring step of one lane: piece h = 32 elements at 128h + 32t of row g and of row g + 8, and
// the two scale bytes (k-blocks 8h + 2t, +1) of each.
struct WideStep {
  ptx::U32x4 lo[2], hi[2];
  unsigned short s_lo[2], s_hi[2];
};

// g0: the lane's first B group of the step (e0 / 8 + 4t); piece h starts 16 groups later.
template <class B>
__device__ __forceinline__ void compute_wide_step(const WideStep& s, unsigned g0, const B& b,
                                                  float (&c)[4]) {
  const typename B::Cache none{};
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    unsigned int lo0, lo1, hi0, hi1;
    nvfp4::scale_pair_bf16x2(s.s_lo[h], lo0, lo1);
    nvfp4::scale_pair_bf16x2(s.s_hi[h], hi0, hi1);
    word_mmas(c, s.lo[h].x, s.hi[h].x, lo0, hi0, b, none, g0 + 16 * h, 0);
    word_mmas(c, s.lo[h].y, s.hi[h].y, lo0, hi0, b, none, g0 + 16 * h, 1);
    word_mmas(c, s.lo[h].z, s.hi[h].z, lo1, hi1, b, none, g0 + 16 * h, 2);
    word_mmas(c, s.lo[h].w, s.hi[h].w, lo1, hi1, b, none, g0 + 16 * h, 3);
  }
}

// The elements past a range's full wide steps, in 64-element tail steps (tile.cuh).
template <class B>
__device__ __forceinline__ void wide_tails(const TileRows& r, unsigned first, unsigned last,
                                           unsigned t, unsigned long long pol, const B& b,
                                           float (&c)[4]) {
  for (unsigned e = first + (last - first) / kWideStep * kWideStep; e < last; e += 64)
    tail_step(r, e, t, pol, b, c);
}

// One lane's view of a warp's ring: where its pieces of each slot live in shared memory.
// Slot layout (kRingSlotBytes): [row g piece 0][row g piece 1][row g+8 piece 0][row g+8 piece 1],
// each [32 lanes][16 B] so that the 16-byte reads are conflict-free, then the scale u32s in the
// same order, [32 lanes][4 B] each (a lane reads the half holding its two k-blocks).
struct RingLane {
  static constexpr unsigned kPiece = 512, kHi = 1024, kScale = 2048, kScalePiece = 128,
                            kScaleHi = 256;
  unsigned piece, scale;  // shared addresses of this lane's slot 0 entries (scale: its u16)

  __device__ __forceinline__ RingLane(unsigned char* ring) {
    const unsigned lane = threadIdx.x % 32;
    piece = ptx::shared_addr(ring) + 16 * lane;
    scale = ptx::shared_addr(ring) + kScale + 4 * lane;
  }
  __device__ __forceinline__ WideStep read(unsigned slot) const {
    const unsigned o = slot * kRingSlotBytes;
    const unsigned half = 2 * (threadIdx.x & 1);  // t & 1: k-blocks 2t, 2t+1 of the u32's four
    WideStep st;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      st.lo[h] = ptx::ld_shared_v4(piece + o + h * kPiece);
      st.hi[h] = ptx::ld_shared_v4(piece + o + kHi + h * kPiece);
      st.s_lo[h] = ptx::ld_shared_u16(scale + o + h * kScalePiece + half);
      st.s_hi[h] = ptx::ld_shared_u16(scale + o + kScaleHi + h * kScalePiece + half);
    }
    return st;
  }
};

// Global read cursor over one tile range's full wide steps: this lane's bytes of the next step.
struct RingSource {
  const unsigned char *w_lo, *w_hi, *s_lo, *s_hi;

  __device__ __forceinline__ void init(const TileRows& r, unsigned e0, unsigned t) {
    const unsigned w = e0 / 2 + 16 * t;
    const unsigned s = (e0 / 64 + (t >> 1)) * 512;  // the u32 holding k-blocks 2t, 2t+1 (piece 0)
    w_lo = r.w_lo + w;
    w_hi = r.w_hi + w;
    s_lo = r.sf_lo + s;
    s_hi = r.sf_hi + s;
  }
  // Copies the next step into `slot` (no commit) and advances.
  __device__ __forceinline__ void issue(const RingLane& l, unsigned slot, unsigned long long pol) {
    const unsigned o = slot * kRingSlotBytes;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      ptx::cp_async16_stream(l.piece + o + h * RingLane::kPiece, w_lo + 64 * h, pol);
      ptx::cp_async16_stream(l.piece + o + RingLane::kHi + h * RingLane::kPiece, w_hi + 64 * h, pol);
      ptx::cp_async4(l.scale + o + h * RingLane::kScalePiece, s_lo + 1024 * h);
      ptx::cp_async4(l.scale + o + RingLane::kScaleHi + h * RingLane::kScalePiece, s_hi + 1024 * h);
    }
    w_lo += kWideStep / 2;
    w_hi += kWideStep / 2;
    s_lo += (kWideStep / 64) * 512;
    s_hi += (kWideStep / 64) * 512;
  }
};

// Consumes one segment [first, last) of a chained ring walk (down_walk.cuh,
// down_persistent.cuh): its full steps from consecutive slots, each slot refilled through
// issue(slot) right after use (one commit group per step), then its 64-element tails read directly.
template <int kPipe, class B, class Issue>
__device__ __forceinline__ void consume_segment(const RingLane& lane, unsigned& slot, const TileRows& rows,
                                                int first, int last, unsigned t,
                                                unsigned long long pol, const B& b, float (&c)[4],
                                                Issue issue) {
  unsigned g0 = static_cast<unsigned>(first) / 8 + 4 * t;
  for (int s = 0; s < (last - first) / kWideStep; ++s) {
    ptx::cp_async_wait<kPipe - 1>();
    compute_wide_step(lane.read(slot), g0, b, c);
    g0 += 32;
    issue(slot);
    slot = slot + 1 == kPipe ? 0 : slot + 1;
  }
  if ((last - first) % kWideStep != 0)
    wide_tails(rows, static_cast<unsigned>(first), static_cast<unsigned>(last), t, pol, b, c);
}

template <int kPipe>
struct RingDot {
  static constexpr int kWarpBytes = kPipe * kRingSlotBytes;
  RingSource src;
  unsigned e0, last_e, t;
  int nfull, issued;

  // Weights only: may run before griddepcontrol.wait. ring: this warp's kWarpBytes.
  __device__ __forceinline__ void start(const TileRows& r, int first, int last, int lane_t,
                                        unsigned long long pol, unsigned char* ring) {
    e0 = static_cast<unsigned>(first);
    t = static_cast<unsigned>(lane_t);
    last_e = static_cast<unsigned>(last);
    nfull = (last - first) / kWideStep;
    issued = 0;
    const RingLane lane(ring);
    src.init(r, e0, t);
#pragma unroll
    for (int i = 0; i < kPipe; ++i) {
      if (i < nfull) {
        src.issue(lane, i, pol);
        ++issued;
      }
      ptx::cp_async_commit();
    }
  }

  __device__ __forceinline__ void finish(const TileRows& r, unsigned long long pol, const SmemB& b,
                                         float (&c)[4], unsigned char* ring) {
    const RingLane lane(ring);
    unsigned g0 = e0 / 8 + 4 * t;
    int s = 0;
    for (; s + kPipe <= nfull; s += kPipe) {
#pragma unroll
      for (int i = 0; i < kPipe; ++i) {
        ptx::cp_async_wait<kPipe - 1>();
        compute_wide_step(lane.read(i), g0 + 32 * i, b, c);
        if (issued < nfull) {
          src.issue(lane, i, pol);
          ++issued;
        }
        ptx::cp_async_commit();
      }
      g0 += 32 * kPipe;
    }
    ptx::cp_async_wait<0>();
#pragma unroll
    for (int i = 0; i < kPipe; ++i)
      if (s + i < nfull) compute_wide_step(lane.read(i), g0 + 32 * i, b, c);
    wide_tails(r, e0, last_e, t, pol, b, c);
  }
};

}  // namespace moegemv
