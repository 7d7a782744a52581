// down_combine (SPEC section 5): per token and output tile, the down GEMVs of the token's
// top-k experts and of the shared expert, each rounded to bf16 after its global scale, combined
// with the router weights in ascending j, plus the shared expert.
//
// A CTA is (tile, token); tile-major, so CTAs that share the shared expert's rows run close
// together and hit L2. When every K length is a multiple of 128 (kSplit, all real models) a tile
// is 8 output rows: mma rows g and g + 8 are the two K halves of output row g, fed by B columns 0
// (first half of act) and 1 (second half), so D[g][0] + D[g+8][1] is the row's dot product. That
// doubles the CTAs (H/8 per token), which evens out the work per SM (H/16 = 448 CTAs on 132 SMs
// left some SMs 4 CTAs and others 3). Otherwise a tile is 16 output rows. Work items are the token's valid experts then the shared expert;
// their 64-element chunks are split evenly over the warps. Each warp's first pipeline steps of
// weights are loaded before griddepcontrol.wait (they never depend on gate_up, and ids/tw were
// written before gate_up started); with L2 = true every weight byte of the CTA is also
// bulk-prefetched into L2 there (SPEC 5), which measured slower at M=1 (docs/PERF.md, v3).
#pragma once

#include "params.h"
#include "ptx.cuh"
#include "down_walk.cuh"
#include "tile.cuh"

namespace moegemv {

template <int H, int I, int SI, int K, bool SPLIT>
struct DownItems {
  static constexpr int kItems = K + (SI > 0 ? 1 : 0);
  static constexpr int kKt = ceil_div(I / 16, 4);
  static constexpr int kKts = ceil_div(SI / 16, 4);
  static constexpr bool kSplit = down_split_k(I, SI, SPLIT);
  static constexpr int kRows = down_tile_rows(I, SI, SPLIT);
  int expert[K];  // valid routed items first, in ascending j; slot[] keeps their j
  int slot[K];
  int routed;     // number of valid routed items
  bool bad;       // some id >= E

  __device__ __forceinline__ int count() const { return routed + (SI > 0 ? 1 : 0); }
  __device__ __forceinline__ bool is_shared(int item) const { return item >= routed; }
  __device__ __forceinline__ int len(int item) const { return is_shared(item) ? SI : I; }
  // 64-element chunks of the dot-product range (half of K when split).
  __device__ __forceinline__ int chunks(int item) const { return len(item) / (kSplit ? 128 : 64); }
  // Elements from a lane's B column to its K half: column 1 (lanes g == 1) reads the second half.
  __device__ __forceinline__ int b_offset(int item, int g) const {
    return kSplit && g == 1 ? len(item) / 2 : 0;
  }

  // mma rows g and g + 8 of lane row g: rows n and n + 8, or (kSplit) both K halves of row n.
  __device__ __forceinline__ TileRows rows(const DownParams& p, int item, int n) const {
    const int l = len(item);
    const unsigned char* w;
    const unsigned char* sf;
    int kt;
    if (is_shared(item)) {
      w = p.wsd;
      sf = p.ssd;
      kt = kKts;
    } else {
      const long long e = expert[item];
      w = p.w2 + e * H * (I / 2);
      sf = p.w2_sf + e * ceil_div(H, 128) * kKt * 512;
      kt = kKt;
    }
    const unsigned char* lo = w + static_cast<long long>(n) * (l / 2);
    const unsigned char* sf_lo = sf + nvfp4::swizzle_row_offset(n, kt);
    if constexpr (kSplit) return TileRows{lo, lo + l / 4, sf_lo, sf_lo + (l / 128) * 512};
    return TileRows{lo, lo + 8 * (l / 2), sf_lo, sf + nvfp4::swizzle_row_offset(n + 8, kt)};
  }
};

// Warms L2 with every weight and scale byte this CTA will read (one bulk prefetch per row piece,
// and per 64-element k-group the 256-byte slice of the scale atom that holds the tile's rows).
template <class Items>
__device__ __forceinline__ void prefetch_tile(const DownParams& p, const Items& it,
                                              int n0) {
  const int n = it.count();
  for (int job = threadIdx.x; job < n * 16; job += blockDim.x) {
    const int item = job / 16, r = job % 16;
    const TileRows rows = it.rows(p, item, n0 + (r & 7));
    const unsigned int bytes = it.chunks(item) * 32;
    ptx::prefetch_l2(r < 8 ? rows.w_lo : rows.w_hi, bytes);
  }
  for (int job = threadIdx.x; job < n * (I > SI ? I : SI) / 64; job += blockDim.x) {
    const int per = (I > SI ? I : SI) / 64;
    const int item = job / per, q = job % per;
    if (q >= it.len(item) / 64) continue;
    const TileRows rows = it.rows(p, item, n0);
    // Rows n0..n0+15 (n0 % 16 == 0) of one 128-row block: 16 u32 at stride 16 bytes inside each
    // 512-byte atom, i.e. one 16-byte-aligned 256-byte run per k-group q.
    const unsigned long long run = reinterpret_cast<unsigned long long>(rows.sf_lo) & ~15ull;
    ptx::prefetch_l2(reinterpret_cast<const unsigned char*>(run) + q * 512, 256);
  }
}

// The token's items: valid routed experts in ascending j, then the shared expert.
template <int K, class Items>
__device__ __forceinline__ void load_items(const DownParams& p, int tok, Items& it) {
  it.routed = 0;
  it.bad = false;
#pragma unroll
  for (int j = 0; j < K; ++j) {
    const int e = p.ids[tok * K + j];
    if (e >= p.e) it.bad = true;
    if (e >= 0 && e < p.e) {
      it.expert[it.routed] = e;
      it.slot[it.routed] = j;
      ++it.routed;
    }
  }
}

// SPEC section 5's combine for tile row r from the warps' partial sums part[item][warp][16]
// (entries of warps that did not touch an item are zero); with `clear`, zeroes what it read.
template <int SI, int K, int W, class Items>
__device__ __forceinline__ unsigned short combine_row(const DownParams& p, const Items& it, float* part,
                                                     int r, int tok, bool clear) {
  auto sum_item = [&](int x) {
    float sum = 0.0f;
    for (int w = 0; w < W; ++w) {
      float& v = part[(x * W + w) * kTileRows + r];
      sum = ptx::add_rn(sum, v);
      if (clear) v = 0.0f;
    }
    return ptx::mul_rn(sum, nvfp4::kAccUnscale);
  };
  float acc = 0.0f;
  for (int x = 0; x < it.routed; ++x) {
    const float y = ptx::bf16_to_f32(ptx::f32_to_bf16(ptx::mul_rn(sum_item(x), p.alpha2[it.expert[x]])));
    acc = ptx::fma_rn(y, p.tw[tok * K + it.slot[x]], acc);
  }
  float ys = 0.0f;
  if (SI > 0) ys = ptx::bf16_to_f32(ptx::f32_to_bf16(ptx::mul_rn(sum_item(it.routed), *p.gssd)));
  const unsigned short o = ptx::f32_to_bf16(ptx::add_rn(ptx::bf16_to_f32(ptx::f32_to_bf16(acc)), ys));
  return it.bad ? 0x7FC0 : o;
}

// A warp's sums of one item into part[item][warp][16]; with kSplit the row's two K halves are
// D[g][0] and D[g+8][1] (lanes t == 0 hold column 0 and 1).
template <class Items, int W>
__device__ __forceinline__ void store_partial(float* part, int item, int warp, int g, int t,
                                              const float (&c)[4]) {
  if (t != 0) return;
  if constexpr (Items::kSplit) {
    part[(item * W + warp) * kTileRows + g] = ptx::add_rn(c[0], c[3]);
  } else {
    part[(item * W + warp) * kTileRows + g] = c[0];
    part[(item * W + warp) * kTileRows + g + 8] = c[2];
  }
}

// The warp's chunk range of a tile and its walk's start (the first item overlapping it).
template <class Items>
__device__ __forceinline__ DownWalk<Items> warp_walk(const Items& it, int warp, int warps) {
  int total = 0;
  for (int item = 0; item < it.count(); ++item) total += it.chunks(item);
  DownWalk<Items> w{0, 0, 0, 0};
  split_chunks(total, warp, warps, w.c_first, w.c_last);
  while (w.item < it.count() && w.base + it.chunks(w.item) <= w.c_first) w.base += it.chunks(w.item++);
  return w;
}

// Copies the token's act rows (valid items) and sact into shared memory in the SmemB permutation:
// one flat copy, so a thread's loads of different rows are in flight together.
template <int I, int SI, int K, class Items>
__device__ __forceinline__ void stage_token(const DownParams& p, const Items& it, int tok,
                                            ptx::U32x4* bs) {
  const int routed_groups = it.routed * (I / 8);
  stage_groups(routed_groups + (SI > 0 ? SI / 8 : 0),
               [&](int gi) {
                 return gi < routed_groups
                            ? p.act + static_cast<long long>(tok * K + it.slot[gi / (I / 8)]) * I +
                                  8 * (gi % (I / 8))
                            : p.sact + static_cast<long long>(tok) * SI + 8 * (gi - routed_groups);
               },
               bs);
}

template <int H, int I, int SI, int K, int W, int PIPE, bool DIRECT, bool L2, int RING, bool SPLIT>
__device__ __forceinline__ void down_combine(const DownParams& p) {
  static_assert(H % 64 == 0 && I % 64 == 0 && SI % 64 == 0, "SPEC: multiples of 64");
  static_assert(!(RING && DIRECT), "the ring reads act from shared memory");
  extern __shared__ __align__(16) unsigned char smem[];
  using Items = DownItems<H, I, SI, K, SPLIT>;
  const int tile = blockIdx.x / p.m, tok = blockIdx.x % p.m;
  const int n0 = tile * Items::kRows;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;

  Items it;
  load_items<K>(p, tok, it);
  if constexpr (L2) prefetch_tile(p, it, n0);

  const DownWalk<Items> walk = warp_walk(it, warp, W);
  DownWalk<Items> w = walk;  // the register ring's position

  const unsigned long long pol = ptx::evict_first_policy();
  // smem: staged act/sact (unless DIRECT), partial sums, then (RING) one weight ring per warp.
  constexpr int kStaging = DIRECT ? 0 : (K * I + SI) * 2;
  constexpr int kPartials = Items::kItems * W * kTileRows * 4;
  unsigned char* ring = smem + kStaging + kPartials + warp * PIPE * kRingSlotBytes;
  TileDot<PIPE, BSource<DIRECT>> dot;  // register ring
  DownChain<PIPE, Items> chain;         // shared-memory ring (RING)
  if constexpr (RING) {
    chain.start(p, it, walk, n0 + g, t, pol, ring);
  } else if (w.valid(it)) {
    dot.start(it.rows(p, w.item, n0 + g), w.first(), w.last(it), t, pol);
  }

  ptx::griddep_wait();  // act and sact are gate_up's output
  ptx::griddep_launch_dependents();

  // B rows: the token's act rows (valid items only) and sact; staged in shared memory in the
  // SmemB permutation unless DIRECT.
  auto b_row = [&](int item) {
    return item < it.routed ? p.act + static_cast<long long>(tok * K + it.slot[item]) * I
                            : p.sact + static_cast<long long>(tok) * SI;
  };
  ptx::U32x4* bs = reinterpret_cast<ptx::U32x4*>(smem);
  if constexpr (!DIRECT) {
    stage_token<I, SI, K>(p, it, tok, bs);
  }
  float* part = reinterpret_cast<float*>(smem + kStaging);  // [item][warp][16]
  for (int x = threadIdx.x; x < Items::kItems * W * kTileRows; x += blockDim.x) part[x] = 0.0f;
  __syncthreads();

  auto store = [&](int x, const float (&c)[4]) { store_partial<Items, W>(part, x, warp, g, t, c); };
  if constexpr (RING) {
    chain.finish(p, it, walk, n0 + g, t, pol, ring,
                 [&](int x) { return SmemB{bs + x * (I / 8) + it.b_offset(x, g) / 8}; }, store);
  } else {
    // Register ring: one pipeline per segment (start() of the next after finish() of this one).
    while (w.valid(it)) {
      float c[4] = {0.f, 0.f, 0.f, 0.f};
      const int boff = it.b_offset(w.item, g);
      if constexpr (DIRECT) {
        dot.finish(it.rows(p, w.item, n0 + g), t, pol, GlobalB{b_row(w.item) + boff}, c);
      } else {
        dot.finish(it.rows(p, w.item, n0 + g), t, pol, SmemB{bs + w.item * (I / 8) + boff / 8}, c);
      }
      store(w.item, c);
      w.next(it);
      if (w.valid(it)) dot.start(it.rows(p, w.item, n0 + g), w.first(), w.last(it), t, pol);
    }
  }
  __syncthreads();

  if (threadIdx.x < Items::kRows)
    p.out[static_cast<long long>(tok) * H + n0 + threadIdx.x] =
        combine_row<SI, K, W>(p, it, part, threadIdx.x, tok, false);
}

}  // namespace moegemv
