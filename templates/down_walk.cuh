// One warp's walk over its share of a down_combine tile: the token's items (valid routed experts,
// then the shared expert) laid end to end in 64-element chunks, of which the warp owns
// [c_first, c_last). A segment is the part of one item inside that range.
//
// DownChain streams all of the warp's segments through one shared-memory ring (ring.cuh) without
// draining it between segments: the issue cursor runs kPipe steps ahead of the consume cursor and
// crosses into the next item on its own, so a warp keeps its loads in flight across the ~3 item
// boundaries of its range (the register ring restarted its pipeline at each one).
#pragma once

#include "params.h"
#include "ring.cuh"
#include "tile.cuh"

namespace moegemv {

template <class Items>
struct DownWalk {
  int item, base;  // the current item and its first chunk in the concatenation
  int c_first, c_last;

  __device__ __forceinline__ bool valid(const Items& it) const {
    return item < it.count() && base < c_last;
  }
  __device__ __forceinline__ int first() const { return 64 * ((c_first > base ? c_first : base) - base); }
  __device__ __forceinline__ int last(const Items& it) const {
    const int end = base + it.chunks(item);
    return 64 * ((c_last < end ? c_last : end) - base);
  }
  __device__ __forceinline__ void next(const Items& it) { base += it.chunks(item++); }
};

template <int kPipe, class Items>
struct DownChain {
  DownWalk<Items> iss;  // segment being issued
  RingSource src;
  int iss_left;         // its full steps not yet issued

  // Issues the next full step of the walk (if any) into `slot` and commits one group (empty at
  // the end), so that commit group n always holds step n.
  __device__ __forceinline__ void issue_next(const DownParams& p, const Items& it, int n, unsigned t,
                                             const RingLane& lane, unsigned slot,
                                             unsigned long long pol) {
    while (iss_left == 0 && iss.valid(it)) {
      iss.next(it);
      if (iss.valid(it)) {
        src.init(it.rows(p, iss.item, n), static_cast<unsigned>(iss.first()), t);
        iss_left = (iss.last(it) - iss.first()) / kWideStep;
      }
    }
    if (iss_left > 0) {
      src.issue(lane, slot, pol);
      --iss_left;
    }
    ptx::cp_async_commit();
  }

  // Weights only: may run before griddepcontrol.wait. n: this lane's tile row.
  __device__ __forceinline__ void start(const DownParams& p, const Items& it, const DownWalk<Items>& w,
                                        int n, unsigned t, unsigned long long pol, unsigned char* ring) {
    iss = w;
    iss_left = 0;
    if (iss.valid(it)) {
      src.init(it.rows(p, iss.item, n), static_cast<unsigned>(iss.first()), t);
      iss_left = (iss.last(it) - iss.first()) / kWideStep;
    }
    const RingLane lane(ring);
#pragma unroll
    for (int i = 0; i < kPipe; ++i) issue_next(p, it, n, t, lane, i, pol);
  }

  // Consumes the walk from `w` (the same start as start()). b_of(item): the item's SmemB;
  // store(item, c): the warp's accumulators of a finished segment.
  template <class BOf, class Store>
  __device__ __forceinline__ void finish(const DownParams& p, const Items& it, DownWalk<Items> w, int n,
                                         unsigned t, unsigned long long pol, unsigned char* ring,
                                         BOf b_of, Store store) {
    const RingLane lane(ring);
    unsigned slot = 0;
    for (; w.valid(it); w.next(it)) {
      float c[4] = {0.f, 0.f, 0.f, 0.f};
      consume_segment<kPipe>(lane, slot, it.rows(p, w.item, n), w.first(), w.last(it), t, pol,
                             b_of(w.item), c,
                             [&](unsigned s) { issue_next(p, it, n, t, lane, s, pol); });
      store(w.item, c);
    }
    ptx::cp_async_wait<0>();
  }
};

}  // namespace moegemv
