// down_combine as a persistent kernel (config ring = 2): one CTA per SM walks the units (tile,
// token), token-major, u = blockIdx.x, + gridDim.x, ... Per token it loads the ids and stages act
// once; its warps split every unit's chunks as in down_combine.cuh, and one shared-memory ring per
// warp streams the weights of all the token's units without draining between them (the issue
// cursor runs kPipe steps ahead across unit boundaries). After each unit a barrier, and the
// unit's rows are combined from double-buffered partial sums while the warps go on.
//
// Why: profiled, the one-CTA-per-unit kernel spent most stalls in its prologue (ids -> weight
// addresses, staging act) and re-filled its pipeline per CTA; and 896 CTAs of ~3 per SM left a
// tail. Here the units per SM are 6 or 7 at DeepSeek-V3 M=1 (896 units, 132 SMs).
#pragma once

#include "down_combine.cuh"

namespace moegemv {

template <int kPipe, int kTiles, class Items>
struct UnitChain {
  DownWalk<Items> iss, first_walk;  // issue position; the warp's walk start in every unit
  RingSource src;
  int iss_unit, iss_left, token_end;  // token_end: first unit index past this token

  __device__ __forceinline__ int row(int unit, int g) const { return (unit % kTiles) * Items::kRows + g; }

  __device__ __forceinline__ void open(const DownParams& p, const Items& it, int g, unsigned t) {
    src.init(it.rows(p, iss.item, row(iss_unit, g)), static_cast<unsigned>(iss.first()), t);
    iss_left = (iss.last(it) - iss.first()) / kWideStep;
  }

  // Issues the next full step (if any) into `slot`, crossing items and units of this token;
  // always commits one group.
  __device__ __forceinline__ void issue_next(const DownParams& p, const Items& it, int g, unsigned t,
                                             const RingLane& lane, unsigned slot,
                                             unsigned long long pol) {
    while (iss_left == 0 && iss_unit < token_end) {
      iss.next(it);
      if (!iss.valid(it)) {
        iss_unit += gridDim.x;
        iss = first_walk;
      }
      if (iss_unit < token_end && iss.valid(it)) open(p, it, g, t);
    }
    if (iss_left > 0) {
      src.issue(lane, slot, pol);
      --iss_left;
    }
    ptx::cp_async_commit();
  }

  __device__ __forceinline__ void start(const DownParams& p, const Items& it, const DownWalk<Items>& w,
                                        int unit, int end, int g, unsigned t, const RingLane& lane,
                                        unsigned long long pol) {
    iss = first_walk = w;
    iss_unit = unit;
    token_end = end;
    iss_left = 0;
    if (iss.valid(it)) open(p, it, g, t);
#pragma unroll
    for (int i = 0; i < kPipe; ++i) issue_next(p, it, g, t, lane, i, pol);
  }
};

// Same template parameters as down_combine (DIRECT, L2 and RING are implied: staged, no bulk
// prefetch, ring = 2).
template <int H, int I, int SI, int K, int W, int PIPE, bool DIRECT, bool L2, int RING, bool SPLIT>
__device__ __forceinline__ void down_combine_persistent(const DownParams& p) {
  static_assert(RING == 2 && !DIRECT && !L2, "the persistent down_combine is config ring = 2");
  extern __shared__ __align__(16) unsigned char smem[];
  using Items = DownItems<H, I, SI, K, SPLIT>;
  constexpr int kTiles = H / Items::kRows;
  constexpr int kStaging = (K * I + SI) * 2;
  constexpr int kPartials = Items::kItems * W * kTileRows * 4;  // one buffer
  const int warp = threadIdx.x / 32, lane_id = threadIdx.x % 32, g = lane_id / 4;
  const unsigned t = static_cast<unsigned>(lane_id % 4);
  ptx::U32x4* bs = reinterpret_cast<ptx::U32x4*>(smem);
  float* parts = reinterpret_cast<float*>(smem + kStaging);
  const RingLane lane(smem + kStaging + 2 * kPartials + warp * PIPE * kRingSlotBytes);
  const unsigned long long pol = ptx::evict_first_policy();
  const int units = p.m * kTiles;

  for (int x = threadIdx.x; x < 2 * kPartials / 4; x += blockDim.x) parts[x] = 0.0f;
  bool waited = false;
  int buf = 0;
  for (int u = blockIdx.x; u < units;) {
    const int tok = u / kTiles;
    const int end = (tok + 1) * kTiles;
    Items it;
    load_items<K>(p, tok, it);
    const DownWalk<Items> walk = warp_walk(it, warp, W);
    UnitChain<PIPE, kTiles, Items> chain;
    chain.start(p, it, walk, u, end, g, t, lane, pol);  // weights only
    if (!waited) {
      ptx::griddep_wait();  // act and sact are gate_up's output
      ptx::griddep_launch_dependents();
      waited = true;
    }
    __syncthreads();  // the previous token's act is no longer read
    stage_token<I, SI, K>(p, it, tok, bs);
    __syncthreads();

    unsigned slot = 0;
    for (; u < end && u < units; u += gridDim.x) {
      const int n = (u % kTiles) * Items::kRows + g;
      float* part = parts + buf * (kPartials / 4);
      for (DownWalk<Items> w = walk; w.valid(it); w.next(it)) {
        float c[4] = {0.f, 0.f, 0.f, 0.f};
        consume_segment<PIPE>(lane, slot, it.rows(p, w.item, n), w.first(), w.last(it), t, pol,
                              SmemB{bs + w.item * (I / 8) + it.b_offset(w.item, g) / 8}, c,
                              [&](unsigned s) { chain.issue_next(p, it, g, t, lane, s, pol); });
        store_partial<Items, W>(part, w.item, warp, g, t, c);
      }
      __syncthreads();  // the unit's partial sums are complete
      if (threadIdx.x < Items::kRows)
        p.out[static_cast<long long>(tok) * H + (u % kTiles) * Items::kRows + threadIdx.x] =
            combine_row<SI, K, W>(p, it, part, threadIdx.x, tok, true);
      buf ^= 1;
    }
    ptx::cp_async_wait<0>();
  }
}

}  // namespace moegemv
