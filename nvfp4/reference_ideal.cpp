// The float64 references: the same weights (exact e2m1 * e4m3) and inputs, double sums, exact
// sigmoid/SiLU, no bf16 rounding anywhere. They bound how far the fp32 recipe is from the math.
#include <cmath>

#include "nvfp4/format.hpp"
#include "nvfp4/parallel.hpp"
#include "nvfp4/reference.hpp"
#include "nvfp4/weight_rows.hpp"

namespace moegemv::nvfp4 {

namespace {

double dot(const double* a, const float* w, int n) {
  double acc = 0.0;
  for (int k = 0; k < n; ++k) acc += a[k] * static_cast<double>(w[k]);
  return acc;
}

double silu(double g) { return g / (1.0 + std::exp(-g)); }

}  // namespace

GateUpIdeal gate_up_ideal(std::span<const uint16_t> x, std::span<const int32_t> ids, int K,
                          const RoutedLayout& routed, const SharedLayout& shared) {
  const ProblemDims d = check_gate_up_args(x.size(), ids, K, routed, shared);
  std::vector<double> xd(x.size());
  for (std::size_t k = 0; k < x.size(); ++k) xd[k] = bf16_bits_to_float(x[k]);
  GateUpIdeal out;
  out.act.assign(std::size_t{1} * d.P * d.I, 0.0);
  out.sact.assign(std::size_t{1} * d.M * d.SI, 0.0);

  parallel_for(out.act.size(), 16, [&](std::size_t begin, std::size_t end) {
    std::vector<float> wu(d.H), wg(d.H);
    for (std::size_t item = begin; item < end; ++item) {
      const int p = static_cast<int>(item / d.I), i = static_cast<int>(item % d.I);
      const int e = ids[p];
      if (e < 0) continue;
      decode_w1_row(routed, e, false, i, wu);
      decode_w1_row(routed, e, true, i, wg);
      const double* xt = xd.data() + static_cast<std::size_t>(p / K) * d.H;
      const double alpha = routed.alpha[e];
      out.act[item] = dot(xt, wu.data(), d.H) * alpha * silu(dot(xt, wg.data(), d.H) * alpha);
    }
  });

  parallel_for(d.SI, 4, [&](std::size_t begin, std::size_t end) {
    std::vector<float> wg(d.H), wu(d.H);
    for (std::size_t i = begin; i < end; ++i) {
      decode_wsh_row(shared, true, static_cast<int>(i), wg);
      decode_wsh_row(shared, false, static_cast<int>(i), wu);
      for (int t = 0; t < d.M; ++t) {
        const double* xt = xd.data() + static_cast<std::size_t>(t) * d.H;
        const double g = dot(xt, wg.data(), d.H) * shared.gssh;
        const double u = dot(xt, wu.data(), d.H) * shared.gssh;
        out.sact[static_cast<std::size_t>(t) * d.SI + i] = silu(g) * u;
      }
    }
  });
  return out;
}

std::vector<double> down_combine_ideal(std::span<const double> act, std::span<const int32_t> ids,
                                       std::span<const float> tw, std::span<const double> sact,
                                       int K, const RoutedLayout& routed,
                                       const SharedLayout& shared) {
  const ProblemDims d =
      check_down_combine_args(act.size(), ids, tw.size(), sact.size(), K, routed, shared);
  std::vector<double> out(std::size_t{1} * d.M * d.H, 0.0);
  parallel_for(d.H, 4, [&](std::size_t begin, std::size_t end) {
    std::vector<float> w2(d.I), wsd(d.SI);
    for (std::size_t n = begin; n < end; ++n) {
      if (d.SI > 0) decode_wsd_row(shared, static_cast<int>(n), wsd);
      for (int t = 0; t < d.M; ++t) {
        double acc = 0.0;
        for (int j = 0; j < K; ++j) {
          const int p = t * K + j, e = ids[p];
          if (e < 0) continue;
          decode_w2_row(routed, e, static_cast<int>(n), w2);
          const double y = dot(act.data() + static_cast<std::size_t>(p) * d.I, w2.data(), d.I) *
                           routed.alpha2[e];
          acc += static_cast<double>(tw[p]) * y;
        }
        if (d.SI > 0)
          acc +=
              dot(sact.data() + static_cast<std::size_t>(t) * d.SI, wsd.data(), d.SI) * shared.gssd;
        out[static_cast<std::size_t>(t) * d.H + n] = acc;
      }
    }
  });
  return out;
}

}  // namespace moegemv::nvfp4
