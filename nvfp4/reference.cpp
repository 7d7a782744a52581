// The fp32 references: SPEC.md sections 4-5 line by line. Every product x * w and act * w is
// exact in fp32 (8-bit times 6-bit significands), so the sequential sums round once per add
// whether or not the compiler contracts them into FMAs.
#include "nvfp4/reference.hpp"

#include <bit>
#include <cmath>

#include "nvfp4/format.hpp"
#include "nvfp4/parallel.hpp"
#include "nvfp4/weight_rows.hpp"

namespace moegemv::nvfp4 {

namespace {

// -log2(e) as FlashInfer writes it (-1.44269502f); the bits pin it against literal parsing.
constexpr float kNegLog2e = std::bit_cast<float>(0xBFB8AA3Bu);
static_assert(kNegLog2e == -1.44269502f);

float flush_subnormal(float v) { return std::fpclassify(v) == FP_SUBNORMAL ? 0.0f * v : v; }

std::vector<float> to_float(std::span<const uint16_t> bf16) {
  std::vector<float> out(bf16.size());
  for (std::size_t i = 0; i < bf16.size(); ++i) out[i] = bf16_bits_to_float(bf16[i]);
  return out;
}

// SPEC order: one sequential fp32 sum. Controls only, never the reference: blocks > 1 sums
// `blocks` contiguous parts separately and then adds the parts in order; blocks == 0 sums in
// double (exact for these products in practice) and rounds once, the most accurate kernel possible.
float dot(const float* a, const float* w, int n, int blocks = 1) {
  if (blocks == 0) {
    double exact = 0.0;
    for (int k = 0; k < n; ++k) exact += static_cast<double>(a[k]) * w[k];
    return static_cast<float>(exact);
  }
  float total = 0.0f;
  for (int b = 0; b < blocks; ++b) {
    float acc = 0.0f;
    for (int k = n * b / blocks; k < n * (b + 1) / blocks; ++k) acc += a[k] * w[k];
    total = b == 0 ? acc : total + acc;
  }
  return total;
}

}  // namespace

float ex2_approx_ftz(float x) { return flush_subnormal(std::exp2(flush_subnormal(x))); }

float rcp_approx_ftz(float x) { return flush_subnormal(1.0f / flush_subnormal(x)); }

float routed_silu_mul(float u, float g) {
  const float a = ex2_approx_ftz(g * kNegLog2e);
  const float r = rcp_approx_ftz(a + 1.0f);
  return u * (g * r);
}

GateUpRef gate_up_ref(std::span<const uint16_t> x, std::span<const int32_t> ids, int K,
                      const RoutedLayout& routed, const SharedLayout& shared, int sum_blocks) {
  const ProblemDims d = check_gate_up_args(x.size(), ids, K, routed, shared);
  const std::vector<float> xf = to_float(x);
  GateUpRef out;
  out.act.assign(std::size_t{1} * d.P * d.I, 0);
  out.act_scale.assign(out.act.size(), 0.0f);
  out.sact.assign(std::size_t{1} * d.M * d.SI, 0);
  out.sact_scale.assign(out.sact.size(), 0.0f);

  // Routed: one item per (pair, feature); skipped pairs keep their zero row.
  parallel_for(out.act.size(), 16, [&](std::size_t begin, std::size_t end) {
    std::vector<float> wu(d.H), wg(d.H);
    for (std::size_t item = begin; item < end; ++item) {
      const int p = static_cast<int>(item / d.I), i = static_cast<int>(item % d.I);
      const int e = ids[p];
      if (e < 0) continue;
      decode_w1_row(routed, e, false, i, wu);
      decode_w1_row(routed, e, true, i, wg);
      const float* xt = xf.data() + static_cast<std::size_t>(p / K) * d.H;
      const float u = dot(xt, wu.data(), d.H, sum_blocks) * routed.alpha[e];
      const float g = dot(xt, wg.data(), d.H, sum_blocks) * routed.alpha[e];
      const float v = routed_silu_mul(u, g);
      out.act[item] = float_to_bf16_bits(v);
      out.act_scale[item] = std::fabs(v);
    }
  });

  // Shared: one item per feature, all tokens (the weight rows are decoded once).
  parallel_for(d.SI, 4, [&](std::size_t begin, std::size_t end) {
    std::vector<float> wg(d.H), wu(d.H);
    for (std::size_t i = begin; i < end; ++i) {
      decode_wsh_row(shared, true, static_cast<int>(i), wg);
      decode_wsh_row(shared, false, static_cast<int>(i), wu);
      for (int t = 0; t < d.M; ++t) {
        const float* xt = xf.data() + static_cast<std::size_t>(t) * d.H;
        const float gb = round_bf16(dot(xt, wg.data(), d.H, sum_blocks) * shared.gssh);
        const float ub = round_bf16(dot(xt, wu.data(), d.H, sum_blocks) * shared.gssh);
        const float s = round_bf16(gb / (1.0f + std::exp(-gb)));
        const float v = s * ub;
        const std::size_t o = static_cast<std::size_t>(t) * d.SI + i;
        out.sact[o] = float_to_bf16_bits(v);
        out.sact_scale[o] = std::fabs(v);
      }
    }
  });
  return out;
}

DownCombineRef down_combine_ref(std::span<const uint16_t> act, std::span<const int32_t> ids,
                                std::span<const float> tw, std::span<const uint16_t> sact, int K,
                                const RoutedLayout& routed, const SharedLayout& shared,
                                int sum_blocks) {
  const ProblemDims d =
      check_down_combine_args(act.size(), ids, tw.size(), sact.size(), K, routed, shared);
  const std::vector<float> actf = to_float(act), sactf = to_float(sact);
  DownCombineRef out;
  out.out.assign(std::size_t{1} * d.M * d.H, 0);
  out.scale.assign(out.out.size(), 0.0f);

  // One item per output row n, all tokens (the shared row is decoded once).
  parallel_for(d.H, 4, [&](std::size_t begin, std::size_t end) {
    std::vector<float> w2(d.I), wsd(d.SI);
    for (std::size_t n = begin; n < end; ++n) {
      if (d.SI > 0) decode_wsd_row(shared, static_cast<int>(n), wsd);
      for (int t = 0; t < d.M; ++t) {
        float acc = 0.0f, scale = 0.0f;
        for (int j = 0; j < K; ++j) {
          const int p = t * K + j, e = ids[p];
          if (e < 0) continue;
          decode_w2_row(routed, e, static_cast<int>(n), w2);
          const float* a = actf.data() + static_cast<std::size_t>(p) * d.I;
          const float y = round_bf16(dot(a, w2.data(), d.I, sum_blocks) * routed.alpha2[e]);
          acc = std::fma(y, tw[p], acc);
          scale += std::fabs(y * tw[p]);
        }
        float ys = 0.0f;
        if (d.SI > 0) {
          const float* s = sactf.data() + static_cast<std::size_t>(t) * d.SI;
          ys = round_bf16(dot(s, wsd.data(), d.SI, sum_blocks) * shared.gssd);
        }
        const std::size_t o = static_cast<std::size_t>(t) * d.H + n;
        out.out[o] = float_to_bf16_bits(round_bf16(acc) + ys);
        out.scale[o] = scale + std::fabs(ys);
      }
    }
  });
  return out;
}

}  // namespace moegemv::nvfp4
