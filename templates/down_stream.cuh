// down_combine as a persistent streaming kernel (config stream = 1; SPEC section 5, same numerics
// as down_combine.cuh). One CTA per SM walks a contiguous range of units (token, 8 output rows),
// token-major, so act is staged once per token. A unit has K + 1 segments (the routed experts in
// ascending j, then the shared expert), each cut into CH pieces; consumer warp w always takes piece
// w (segment w / CH, chunk w % CH) and has its own ring of D slots. In a piece, mma rows g and
// g + 8 are the two K halves of output row g (B columns 0 and 1 are the matching halves of act),
// so a unit is 8 rows and the H/8 units per token spread evenly over the SMs.
//
// The producer reads ids and streams weights before griddepcontrol.wait (SPEC 5: weights never
// depend on gate_up; ids and tw were written before gate_up started); consumers wait before
// staging act.
#pragma once

#include "down_combine.cuh"
#include "stream.cuh"

namespace moegemv {

template <int H, int I, int SI, int K, int CH, int D>
struct DownStream {
  static constexpr int kSegs = down_stream_segments(SI, K);
  static constexpr int kWarps = down_stream_warps(SI, K, CH);
  static constexpr int kKcI = down_stream_kc(I, CH);
  static constexpr int kKcS = SI > 0 ? down_stream_kc(SI, CH) : 64;
  static constexpr int kSlotBytes = down_stream_slot_bytes(I, SI, CH);
  static constexpr int kTiles = H / 8;
  static constexpr int kKt = ceil_div(I / 16, 4);
  static constexpr int kKts = ceil_div(SI / 16, 4);
};

template <int H, int I, int SI, int K, int CH, int D>
__device__ __forceinline__ void down_produce(const DownParams& p, const Barriers& bars,
                                             unsigned int slots, int begin, int end) {
  using S = DownStream<H, I, SI, K, CH, D>;
  const int lane = threadIdx.x % 32;
  const unsigned long long pol = ptx::evict_first_policy();
  const int half = (lane % 16) / 8;  // mma rows 8..15 read the second K half
  int tok = -1, lane_id = -1;       // lane j < K holds ids[tok, j]: one load latency per token
  for (int u = begin; u < end; ++u) {
    if (u / S::kTiles != tok) {
      tok = u / S::kTiles;
      lane_id = lane < K ? p.ids[tok * K + lane] : -1;
    }
    const int row = (u % S::kTiles) * 8 + lane % 8;
    const int v = u - begin;
#pragma unroll 1
    for (int seg = 0; seg < S::kSegs; ++seg) {
      const bool routed = seg < K;
      const int e = __shfl_sync(0xffffffffu, lane_id, routed ? seg : 0);
      const bool valid = !routed || (e >= 0 && e < p.e);
      const long long ev = valid ? e : 0;
      const int len = routed ? I : SI;
      const unsigned char* w = routed ? p.w2 + ev * H * (I / 2) : p.wsd;
      const unsigned char* sf =
          routed ? p.w2_sf + ev * ceil_div(H, 128) * S::kKt * 512 : p.ssd;
      w += static_cast<long long>(row) * (len / 2);
      sf += nvfp4::swizzle_row_offset(row, routed ? S::kKt : S::kKts);
#pragma unroll 1
      for (int ch = 0; ch < CH; ++ch) {
        const int ring = seg * CH + ch;
        wait_free<D>(bars, ring, v);
        const int index = ring * D + RingPos<D>(v).slot;
        const unsigned int slot = slots + index * S::kSlotBytes;
        if (routed) {
          const int off = half * (I / 4) + ch * S::kKcI;
          fill_slot<S::kKcI>(slot, bars.full(index), lane, valid, w + off, sf + (off / 32) * 512, pol);
        } else {
          const int off = half * (SI / 4) + ch * S::kKcS;
          fill_slot<S::kKcS>(slot, bars.full(index), lane, valid, w + off, sf + (off / 32) * 512, pol);
        }
      }
    }
  }
}

// Per-token state in shared memory: router weight, alpha2 and 0 skip / 1 valid / 2 bad per j.
struct DownToken {
  float* tw;
  float* alpha2;
  int* state;
};

template <int H, int I, int SI, int K, int CH, int D>
__device__ __forceinline__ void stage_down_token(const DownParams& p, int tok, ptx::U32x4* bs,
                                                 const DownToken& info) {
  constexpr int kThreads = DownStream<H, I, SI, K, CH, D>::kWarps * 32;
  // act rows tok*K .. tok*K + K - 1 are contiguous, then sact[tok].
  stage_groups_by(threadIdx.x, kThreads, (K * I + SI) / 8,
                  [&](int gi) {
                    return gi < K * I / 8 ? p.act + static_cast<long long>(tok) * K * I + 8 * gi
                                          : p.sact + static_cast<long long>(tok) * SI + 8 * (gi - K * I / 8);
                  },
                  bs);
  if (threadIdx.x < K) {
    const int j = threadIdx.x, e = p.ids[tok * K + j];
    info.state[j] = e < 0 ? 0 : e < p.e ? 1 : 2;
    info.alpha2[j] = e >= 0 && e < p.e ? p.alpha2[e] : 0.0f;
    info.tw[j] = p.tw[tok * K + j];
  }
}

// SPEC 5's combine of output row r from the pieces' partial sums part[piece][8].
template <int SI, int K, int CH>
__device__ __forceinline__ unsigned short down_stream_combine(const float* part, const DownToken& info,
                                                              int r, float gssd) {
  auto segment = [&](int s) {
    float sum = 0.0f;
    for (int ch = 0; ch < CH; ++ch) sum = ptx::add_rn(sum, part[(s * CH + ch) * 8 + r]);
    return ptx::mul_rn(sum, nvfp4::kAccUnscale);
  };
  float acc = 0.0f;
  bool bad = false;
  for (int j = 0; j < K; ++j) {
    bad |= info.state[j] == 2;
    if (info.state[j] != 1) continue;
    const float y = ptx::bf16_to_f32(ptx::f32_to_bf16(ptx::mul_rn(segment(j), info.alpha2[j])));
    acc = ptx::fma_rn(y, info.tw[j], acc);
  }
  float ys = 0.0f;
  if (SI > 0) ys = ptx::bf16_to_f32(ptx::f32_to_bf16(ptx::mul_rn(segment(K), gssd)));
  const unsigned short o = ptx::f32_to_bf16(ptx::add_rn(ptx::bf16_to_f32(ptx::f32_to_bf16(acc)), ys));
  return bad ? 0x7FC0 : o;
}

template <int H, int I, int SI, int K, int CH, int D>
__device__ __forceinline__ void down_stream(const DownParams& p) {
  using S = DownStream<H, I, SI, K, CH, D>;
  static_assert(down_stream_fits(I, SI, CH), "I and SI multiples of 256 * chunks");
  static_assert(K <= 32, "the producer holds a token's ids one per lane");
  constexpr int W = S::kWarps;
  extern __shared__ __align__(16) unsigned char smem[];
  const Barriers bars{ptx::shared_addr(smem), W * D};
  unsigned char* slot_mem = smem + stream_barrier_bytes(2 * W * D);
  ptx::U32x4* bs = reinterpret_cast<ptx::U32x4*>(slot_mem + W * D * S::kSlotBytes);
  float* parts = reinterpret_cast<float*>(reinterpret_cast<unsigned char*>(bs) + (K * I + SI) * 2);
  float* tok_mem = parts + 2 * W * 8;
  const DownToken info{tok_mem, tok_mem + K, reinterpret_cast<int*>(tok_mem + 2 * K)};
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;

  int begin, end;
  cta_units(down_stream_units(p.m, H), begin, end);
  if (threadIdx.x == 0) bars.init(1);
  __syncthreads();
  if (warp == W) {
    down_produce<H, I, SI, K, CH, D>(p, bars, ptx::shared_addr(slot_mem), begin, end);
    return;
  }

  ptx::griddep_wait();  // act and sact are gate_up's output
  ptx::griddep_launch_dependents();
  const float gssd = SI > 0 ? *p.gssd : 0.0f;
  const int seg = warp / CH, ch = warp % CH;
  const int len = seg < K ? I : SI;
  // This warp's B groups: its segment's act row, the K half of its mma column, its chunk.
  const ptx::U32x4* b = bs + seg * (I / 8) + (g == 1 ? len / 16 : 0) + ch * (down_stream_kc(len, CH) / 4);
  int tok = -1, buf = 0;
  for (int u = begin; u < end; ++u) {
    if (u / S::kTiles != tok) {
      tok = u / S::kTiles;
      ptx::named_barrier(1, W * 32);  // nobody reads the previous token's act any more
      stage_down_token<H, I, SI, K, CH, D>(p, tok, bs, info);
      ptx::named_barrier(1, W * 32);
    }
    const bool valid = seg == K || info.state[seg] == 1;
    float c[4] = {0.f, 0.f, 0.f, 0.f};
    const int index = wait_filled<D>(bars, warp, u - begin);
    const unsigned char* slot = slot_mem + index * S::kSlotBytes;
    if (valid) {
      if (seg < K) slot_dot<S::kKcI>(slot, b, 0, Slot<S::kKcI>::kSteps, g, t, c);
      else slot_dot<S::kKcS>(slot, b, 0, Slot<S::kKcS>::kSteps, g, t, c);
    }
    release(bars, index);
    float* part = parts + buf * (W * 8);
    if (t == 0) part[warp * 8 + g] = ptx::add_rn(c[0], c[3]);  // D[g][0] + D[g+8][1]
    ptx::named_barrier(1, W * 32);
    if (warp == 0 && lane < 8)
      p.out[static_cast<long long>(tok) * H + (u % S::kTiles) * 8 + lane] =
          down_stream_combine<SI, K, CH>(part, info, lane, gssd);
    buf ^= 1;
  }
}

}  // namespace moegemv
