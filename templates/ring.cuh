// The same tile dot product as TileDot (tile.cuh), with the weights and scales of kPipe steps
// held in a per-warp shared-memory ring filled by cp.async instead of in registers.
//
// Why: profiled on the H200 (docs/PERF.md, session 2), the register ring left gate_up latency
// bound: 43% of scheduler cycles had no eligible warp, most stalls waited on the weight loads,
// and the register file capped the bytes in flight at ~34 KB per SM (5 CTAs x 4 warps x ~1.5
// steps). In shared memory the in-flight bytes no longer cost registers.
//
// Each lane copies exactly the bytes it later reads (its two 16-byte row pieces and the u32 of
// each row's scales that holds its two k-blocks), so no lane waits on another: cp.async.wait_group
// alone orders the copy before the read. One commit group per step (empty past the end), so
// "wait until at most kPipe - 1 groups are pending" means "this step has landed".
#pragma once

#include "params.h"
#include "tile.cuh"

namespace moegemv {

// One lane's view of a warp's ring: where its pieces of each slot live in shared memory.
// Slot layout: row g pieces [32 lanes][16 B], row g + 8 pieces, then the scale u32s of row g and
// of row g + 8 [32 lanes][4 B].
struct RingLane {
  static constexpr unsigned kHiOffset = 512, kScaleLoOffset = 1024, kScaleHiOffset = 1152;
  unsigned piece, scale, half;  // shared addresses of slot 0 entries; scale byte of k-blocks 2t..

  __device__ __forceinline__ RingLane(unsigned char* ring, unsigned t) {
    const unsigned lane = threadIdx.x % 32;
    piece = ptx::shared_addr(ring) + 16 * lane;
    scale = ptx::shared_addr(ring) + kScaleLoOffset + 4 * lane;
    half = 2 * (t & 1);
  }
  __device__ __forceinline__ Step<SmemB> read(unsigned slot) const {
    const unsigned o = slot * kRingSlotBytes;
    Step<SmemB> st;
    st.lo = ptx::ld_shared_v4(piece + o);
    st.hi = ptx::ld_shared_v4(piece + o + kHiOffset);
    st.s_lo = ptx::ld_shared_u16(scale + o + half);
    st.s_hi = ptx::ld_shared_u16(scale + o + (kScaleHiOffset - kScaleLoOffset) + half);
    return st;
  }
};

// Global read cursor over one tile range's full steps: this lane's bytes of the next step.
struct RingSource {
  const unsigned char *w_lo, *w_hi, *s_lo, *s_hi;

  __device__ __forceinline__ void init(const TileRows& r, unsigned e0, unsigned t) {
    const unsigned w = e0 / 2 + 16 * t;
    const unsigned s = (e0 / 64 + (t >> 1)) * 512;  // the aligned u32 holding k-blocks 2t, 2t+1
    w_lo = r.w_lo + w;
    w_hi = r.w_hi + w;
    s_lo = r.sf_lo + s;
    s_hi = r.sf_hi + s;
  }
  // Copies the next step into `slot` (no commit) and advances.
  __device__ __forceinline__ void issue(const RingLane& l, unsigned slot, unsigned long long pol) {
    const unsigned o = slot * kRingSlotBytes;
    ptx::cp_async16_stream(l.piece + o, w_lo, pol);
    ptx::cp_async16_stream(l.piece + o + RingLane::kHiOffset, w_hi, pol);
    ptx::cp_async4(l.scale + o, s_lo);
    ptx::cp_async4(l.scale + o + (RingLane::kScaleHiOffset - RingLane::kScaleLoOffset), s_hi);
    w_lo += 64;
    w_hi += 64;
    s_lo += 1024;
    s_hi += 1024;
  }
};

template <int kPipe>
struct RingDot {
  static constexpr int kWarpBytes = kPipe * kRingSlotBytes;
  RingSource src;
  unsigned e0, t;
  int nfull, issued;
  bool tail;

  // Weights only: may run before griddepcontrol.wait. ring: this warp's kWarpBytes.
  __device__ __forceinline__ void start(const TileRows& r, int first, int last, int lane_t,
                                        unsigned long long pol, unsigned char* ring) {
    e0 = static_cast<unsigned>(first);
    t = static_cast<unsigned>(lane_t);
    nfull = (last - first) / 128;
    tail = ((last - first) % 128) != 0;
    issued = 0;
    const RingLane lane(ring, t);
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
    const RingLane lane(ring, t);
    unsigned g0 = e0 / 8 + 4 * t;
    int s = 0;
    for (; s + kPipe <= nfull; s += kPipe) {
#pragma unroll
      for (int i = 0; i < kPipe; ++i) {
        ptx::cp_async_wait<kPipe - 1>();
        compute_step(lane.read(i), g0 + 16 * i, b, c);
        if (issued < nfull) {
          src.issue(lane, i, pol);
          ++issued;
        }
        ptx::cp_async_commit();
      }
      g0 += 16 * kPipe;
    }
    ptx::cp_async_wait<0>();
#pragma unroll
    for (int i = 0; i < kPipe; ++i)
      if (s + i < nfull) compute_step(lane.read(i), g0 + 16 * i, b, c);
    if (tail) tail_step(r, e0 + 128 * static_cast<unsigned>(nfull), t, pol, b, c);
  }
};

}  // namespace moegemv
