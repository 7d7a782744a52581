// The same tile dot product as TileDot (tile.cuh), with the weights and scales of kPipe steps
// held in a per-warp shared-memory ring filled by cp.async instead of in registers, and wider
// steps: 256 elements, so each row is read in 128-byte pieces (lane t: bytes 32t..32t+31).
//
// Why (docs/PERF.md, session 2): profiled on the H200, the register ring left gate_up latency
// bound (43% of scheduler cycles with no eligible warp, most stalls on the weight loads; the
// register file capped the bytes in flight at ~34 KB per SM). And the tiles' read pattern alone
// (`moegemv bench --patterns`, no arithmetic) streams at ~3.4-3.8 TB/s with 64 bytes per row per
// warp step but ~4.4-4.5 TB/s with 128: whole lines per row per step suit HBM better.
//
// Each lane copies exactly the bytes it later reads (its 32 bytes of each of its two rows and
// the u32 of each row's scales that holds its four k-blocks 4t..4t+3), so no lane waits on
// another: cp.async.wait_group alone orders the copy before the read. One commit group per step
// (empty past the end), so "at most kPipe - 1 groups pending" means "this step has landed".
#pragma once

#include "params.h"
#include "tile.cuh"

namespace moegemv {

constexpr int kWideStep = 256;  // elements per row per ring step

// One ring step of one lane: 64 elements of row g and of row g + 8, and their scale u32s.
struct WideStep {
  ptx::U32x4 lo[2], hi[2];
  unsigned int s_lo, s_hi;
};

// g0: the lane's first B group of the step (e0 / 8 + 8t). Piece h covers k-blocks 4t + 2h, +1.
template <class B>
__device__ __forceinline__ void compute_wide_step(const WideStep& s, unsigned g0, const B& b,
                                                  float (&c)[4]) {
  const typename B::Cache none{};
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    unsigned int lo0, lo1, hi0, hi1;
    nvfp4::scale_pair_bf16x2(static_cast<unsigned short>(s.s_lo >> (16 * h)), lo0, lo1);
    nvfp4::scale_pair_bf16x2(static_cast<unsigned short>(s.s_hi >> (16 * h)), hi0, hi1);
    word_mmas(c, s.lo[h].x, s.hi[h].x, lo0, hi0, b, none, g0 + 4 * h, 0);
    word_mmas(c, s.lo[h].y, s.hi[h].y, lo0, hi0, b, none, g0 + 4 * h, 1);
    word_mmas(c, s.lo[h].z, s.hi[h].z, lo1, hi1, b, none, g0 + 4 * h, 2);
    word_mmas(c, s.lo[h].w, s.hi[h].w, lo1, hi1, b, none, g0 + 4 * h, 3);
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
// each [32 lanes][16 B] so that the 16-byte reads are conflict-free, then the scale u32s of row
// g and of row g + 8, [32 lanes][4 B] each.
struct RingLane {
  static constexpr unsigned kPiece = 512, kHi = 1024, kScaleLo = 2048, kScaleHi = 2176;
  unsigned piece, scale;  // shared addresses of this lane's slot 0 entries

  __device__ __forceinline__ RingLane(unsigned char* ring) {
    const unsigned lane = threadIdx.x % 32;
    piece = ptx::shared_addr(ring) + 16 * lane;
    scale = ptx::shared_addr(ring) + kScaleLo + 4 * lane;
  }
  __device__ __forceinline__ WideStep read(unsigned slot) const {
    const unsigned o = slot * kRingSlotBytes;
    WideStep st;
    st.lo[0] = ptx::ld_shared_v4(piece + o);
    st.lo[1] = ptx::ld_shared_v4(piece + o + kPiece);
    st.hi[0] = ptx::ld_shared_v4(piece + o + kHi);
    st.hi[1] = ptx::ld_shared_v4(piece + o + kHi + kPiece);
    st.s_lo = ptx::ld_shared_u32(scale + o);
    st.s_hi = ptx::ld_shared_u32(scale + o + (kScaleHi - kScaleLo));
    return st;
  }
};

// Global read cursor over one tile range's full wide steps: this lane's bytes of the next step.
struct RingSource {
  const unsigned char *w_lo, *w_hi, *s_lo, *s_hi;

  __device__ __forceinline__ void init(const TileRows& r, unsigned e0, unsigned t) {
    const unsigned w = e0 / 2 + 32 * t;
    const unsigned s = (e0 / 64 + t) * 512;  // the u32 holding k-blocks 4t..4t+3 of this step
    w_lo = r.w_lo + w;
    w_hi = r.w_hi + w;
    s_lo = r.sf_lo + s;
    s_hi = r.sf_hi + s;
  }
  // Copies the next step into `slot` (no commit) and advances.
  __device__ __forceinline__ void issue(const RingLane& l, unsigned slot, unsigned long long pol) {
    const unsigned o = slot * kRingSlotBytes;
    ptx::cp_async16_stream(l.piece + o, w_lo, pol);
    ptx::cp_async16_stream(l.piece + o + RingLane::kPiece, w_lo + 16, pol);
    ptx::cp_async16_stream(l.piece + o + RingLane::kHi, w_hi, pol);
    ptx::cp_async16_stream(l.piece + o + RingLane::kHi + RingLane::kPiece, w_hi + 16, pol);
    ptx::cp_async4(l.scale + o, s_lo);
    ptx::cp_async4(l.scale + o + (RingLane::kScaleHi - RingLane::kScaleLo), s_hi);
    w_lo += kWideStep / 2;
    w_hi += kWideStep / 2;
    s_lo += (kWideStep / 64) * 512;
    s_hi += (kWideStep / 64) * 512;
  }
};

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
    unsigned g0 = e0 / 8 + 8 * t;
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
