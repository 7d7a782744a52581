// A CPU-only control for an idea not built (docs/NOTES_session20.md, "fp8 mma with x split in
// two"): the kernels would see each 16-element block of x (gate_up) and of act (the down) as two
// e4m3 terms under one power-of-two scale, so the bits of an element far below its block's
// largest are lost. This control applies exactly that loss to the reference's inputs and judges
// the outputs against the true reference under SPEC section 8's rule.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "moegemv/errors.hpp"
#include "nvfp4/compare.hpp"
#include "nvfp4/format.hpp"
#include "nvfp4/reference.hpp"
#include "tools/harness/check.hpp"

namespace moegemv::harness {

namespace {

// |y| truncated toward zero onto the e4m3 grid (3 mantissa bits; subnormal step 2^-9; <= 448).
double e4m3_toward_zero(double y) {
  const double a = std::fabs(y);
  if (a == 0) return 0;
  const int e = std::max(std::ilogb(a), -6);  // below 2^-6 the subnormal step 2^-9
  const double step = std::ldexp(1.0, e - 3);
  return std::copysign(std::min(std::floor(a / step) * step, 448.0), y);
}

}  // namespace

std::vector<std::uint16_t> as_two_e4m3_terms(std::span<const std::uint16_t> v, int row_length) {
  constexpr int kBlock = 16;  // rows are whole blocks (H, I and SI are multiples of 64)
  if (row_length <= 0 || row_length % kBlock != 0 || v.size() % row_length != 0)
    throw ArgumentError("row_length", fmt::format("a multiple of {} that divides {}", kBlock, v.size()),
                        std::to_string(row_length));
  std::vector<std::uint16_t> out(v.begin(), v.end());
  for (std::size_t b = 0; b < v.size(); b += kBlock) {
    double largest = 0;
    for (int i = 0; i < kBlock; ++i)
      largest = std::max(largest, std::fabs(static_cast<double>(nvfp4::bf16_bits_to_float(v[b + i]))));
    if (largest == 0 || !std::isfinite(largest)) continue;
    const int s = 8 - static_cast<int>(std::ceil(std::log2(largest)));  // largest * 2^s <= 256
    for (int i = 0; i < kBlock; ++i) {
      const double y = std::ldexp(static_cast<double>(nvfp4::bf16_bits_to_float(v[b + i])), s);
      const double hi = e4m3_toward_zero(y), lo = e4m3_toward_zero(y - hi);
      out[b + i] = nvfp4::float_to_bf16_bits(static_cast<float>(std::ldexp(hi + lo, -s)));
    }
  }
  return out;
}

SimpleCheck control_x_two_e4m3(const nvfp4::SyntheticLayer& host, int m, std::uint64_t seed) {
  const auto& sh = host.shape;
  auto in = nvfp4::make_inputs(sh, m, seed);
  auto ref = nvfp4::gate_up_ref(in.x, in.ids, sh.K, host.routed, host.shared);
  const auto x2 = as_two_e4m3_terms(in.x, sh.H);
  auto alt = nvfp4::gate_up_ref(x2, in.ids, sh.K, host.routed, host.shared);
  auto act = nvfp4::compare_bf16(alt.act, ref.act, ref.act_scale);
  auto sact = nvfp4::compare_bf16(alt.sact, ref.sact, ref.sact_scale);
  // The down on the reference's act and sact, as the GPU check judges it, with both in two terms.
  auto dref = nvfp4::down_combine_ref(ref.act, in.ids, in.tw, ref.sact, sh.K, host.routed, host.shared);
  const auto act2 = as_two_e4m3_terms(ref.act, sh.I);
  const auto sact2 = sh.SI > 0 ? as_two_e4m3_terms(ref.sact, sh.SI) : ref.sact;
  auto dalt = nvfp4::down_combine_ref(act2, in.ids, in.tw, sact2, sh.K, host.routed, host.shared);
  auto out = nvfp4::compare_bf16(dalt.out, dref.out, dref.scale);
  std::size_t changed = 0;
  for (std::size_t i = 0; i < x2.size(); ++i) changed += x2[i] != in.x[i];
  SimpleCheck r;
  r.pass = act.pass() && sact.pass() && out.pass();
  r.summary = fmt::format(
      "control (CPU only, {}:{}:{}:{} M={}, seed {}): x and act as two e4m3 terms per 16-block "
      "({} of {} x values lose bits) vs the reference: act {} | sact {} | out {}",
      sh.H, sh.I, sh.SI, sh.K, m, seed, changed, x2.size(), act.summary(), sact.summary(), out.summary());
  return r;
}

}  // namespace moegemv::harness
