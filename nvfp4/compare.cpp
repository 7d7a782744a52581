#include "nvfp4/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "moegemv/errors.hpp"
#include "nvfp4/format.hpp"

namespace moegemv::nvfp4 {

namespace {
constexpr double kRelativeSlack = 0x1p-8;  // section 8: fp32 summation-order allowance
constexpr double kUlpSlack = 2.0;
constexpr double kMinBitIdentical = 0.99;
}  // namespace

double ulp_bf16(float v) {
  const double a = std::fabs(static_cast<double>(v));
  if (a < 0x1p-126) return 0x1p-133;
  int exp;
  std::frexp(a, &exp);  // a in [2^(exp-1), 2^exp)
  return std::ldexp(1.0, exp - 1 - 7);
}

bool CompareResult::pass() const {
  return nan == 0 && unwritten == 0 && over_bound == 0 &&
         static_cast<double>(bit_identical) >= kMinBitIdentical * static_cast<double>(n);
}

std::string CompareResult::summary() const {
  const double pct =
      n ? 100.0 * static_cast<double>(bit_identical) / static_cast<double>(n) : 100.0;
  std::string text = fmt::format(
      "{}: n={} bit-identical={} ({:.2f}%) over-bound={} nan={} unwritten={} max-ulp={:.3g} "
      "max-bound-ratio={:.3g} at [{}]",
      pass() ? "PASS" : "FAIL", n, bit_identical, pct, over_bound, nan, unwritten, max_ulp,
      max_bound_ratio, worst);
  if (first_bad != static_cast<std::size_t>(-1)) text += fmt::format(" first-bad=[{}]", first_bad);
  return text;
}

CompareResult compare_bf16(std::span<const uint16_t> got, std::span<const uint16_t> ref,
                           std::span<const float> scale, uint16_t poison) {
  if (got.size() != ref.size())
    throw ArgumentError("got", fmt::format("{} elements (= ref)", ref.size()),
                        fmt::format("{} elements", got.size()));
  if (scale.size() != ref.size())
    throw ArgumentError("scale", fmt::format("{} elements (= ref)", ref.size()),
                        fmt::format("{} elements", scale.size()));
  CompareResult r;
  r.n = ref.size();
  auto fail = [&r](std::size_t i) {
    if (r.first_bad == static_cast<std::size_t>(-1)) r.first_bad = i;
  };
  for (std::size_t i = 0; i < r.n; ++i) {
    if (got[i] == ref[i]) ++r.bit_identical;
    if (got[i] == poison) {
      ++r.unwritten;
      fail(i);
      continue;
    }
    const float g = bf16_bits_to_float(got[i]), f = bf16_bits_to_float(ref[i]);
    if (std::isnan(g) || std::isnan(f)) {
      ++r.nan;
      fail(i);
      continue;
    }
    // Equal infinities compare exactly; inf - inf would be NaN.
    const double diff = got[i] == ref[i] ? 0.0 : std::fabs(static_cast<double>(g) - f);
    const double ulp = ulp_bf16(f);
    const double bound =
        kUlpSlack * ulp + kRelativeSlack * std::fabs(static_cast<double>(scale[i]));
    r.max_ulp = std::max(r.max_ulp, diff / ulp);
    const double ratio = diff / bound;
    if (ratio > r.max_bound_ratio) {
      r.max_bound_ratio = ratio;
      r.worst = i;
    }
    if (!(diff <= bound)) {
      ++r.over_bound;
      fail(i);
    }
  }
  return r;
}

}  // namespace moegemv::nvfp4
