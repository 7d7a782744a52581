// The references: against an independent naive version on the ModelOpt form (checks the layout
// reads bit for bit), against the float64 ideal (checks the numerics), and the edge cases of
// SPEC.md section 6.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "argument_of.hpp"
#include "moegemv/errors.hpp"
#include "nvfp4/format.hpp"
#include "nvfp4/reference.hpp"
#include "nvfp4/synthetic.hpp"

using namespace moegemv::nvfp4;

namespace {

struct Model {
  ModelShape shape;
  std::vector<ExpertWeights> experts;
  SharedWeights shared_weights;
  RoutedLayout routed;
  SharedLayout shared;
};

Model make_model(const ModelShape& shape, uint64_t seed) {
  Model m{shape, make_experts(shape, seed), make_shared_weights(shape, seed), {}, {}};
  m.routed = to_routed_layout(m.experts);
  m.shared = to_shared_layout(m.shared_weights);
  return m;
}

float naive_dot(const float* a, const QuantizedMatrix& w, int row) {
  float acc = 0.0f;
  for (int k = 0; k < w.cols; ++k) acc += a[k] * dequant_bf16_noglobal(w, row, k);
  return acc;
}

std::vector<float> floats(const std::vector<uint16_t>& bf16) {
  std::vector<float> out(bf16.size());
  for (std::size_t i = 0; i < bf16.size(); ++i) out[i] = bf16_bits_to_float(bf16[i]);
  return out;
}

// SPEC.md sections 4-5 written against the ModelOpt matrices (no layouts involved).
GateUpRef naive_gate_up(const Model& m, const SyntheticInputs& in) {
  const int H = m.shape.H, I = m.shape.I, SI = m.shared.SI, K = in.K;
  const std::vector<float> x = floats(in.x);
  GateUpRef out;
  out.act.assign(in.ids.size() * I, 0);
  for (std::size_t p = 0; p < in.ids.size(); ++p) {
    if (in.ids[p] < 0) continue;
    const ExpertWeights& e = m.experts[in.ids[p]];
    const float* xt = &x[(p / K) * H];
    for (int i = 0; i < I; ++i) {
      const float u = naive_dot(xt, e.up, i) * e.up.weight_scale_2;
      const float g = naive_dot(xt, e.gate, i) * e.gate.weight_scale_2;
      out.act[p * I + i] = float_to_bf16_bits(routed_silu_mul(u, g));
    }
  }
  out.sact.assign(static_cast<std::size_t>(in.M) * SI, 0);
  for (int t = 0; t < in.M; ++t) {
    for (int i = 0; i < SI; ++i) {
      const SharedWeights& s = m.shared_weights;
      const float gb = round_bf16(naive_dot(&x[t * H], s.gate, i) * s.gate.weight_scale_2);
      const float ub = round_bf16(naive_dot(&x[t * H], s.up, i) * s.up.weight_scale_2);
      const float silu = round_bf16(gb / (1.0f + std::exp(-gb)));
      out.sact[t * SI + i] = float_to_bf16_bits(silu * ub);
    }
  }
  return out;
}

std::vector<uint16_t> naive_down_combine(const Model& m, const SyntheticInputs& in,
                                         const std::vector<uint16_t>& act,
                                         const std::vector<uint16_t>& sact) {
  const int H = m.shape.H, I = m.shape.I, SI = m.shared.SI, K = in.K;
  const std::vector<float> a = floats(act), s = floats(sact);
  std::vector<uint16_t> out(static_cast<std::size_t>(in.M) * H);
  for (int t = 0; t < in.M; ++t) {
    for (int n = 0; n < H; ++n) {
      float acc = 0.0f;
      for (int j = 0; j < K; ++j) {
        const int e = in.ids[t * K + j];
        if (e < 0) continue;
        const QuantizedMatrix& w2 = m.experts[e].down;
        const float y = round_bf16(naive_dot(&a[(t * K + j) * I], w2, n) * w2.weight_scale_2);
        acc = std::fma(y, in.tw[t * K + j], acc);
      }
      const QuantizedMatrix& wsd = m.shared_weights.down;
      const float ys = SI ? round_bf16(naive_dot(&s[t * SI], wsd, n) * wsd.weight_scale_2) : 0.0f;
      out[t * H + n] = float_to_bf16_bits(round_bf16(acc) + ys);
    }
  }
  return out;
}

std::vector<double> to_double(const std::vector<uint16_t>& bf16) {
  std::vector<double> out(bf16.size());
  for (std::size_t i = 0; i < bf16.size(); ++i) out[i] = bf16_bits_to_float(bf16[i]);
  return out;
}

double rms(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x * x;
  return v.empty() ? 0.0 : std::sqrt(s / v.size());
}

// max |ref - ideal| / (|ideal| + floor * rms(ideal)).
double max_rel_error(const std::vector<uint16_t>& ref, const std::vector<double>& ideal,
                     double floor) {
  const double r = rms(ideal);
  double worst = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double err = std::fabs(bf16_bits_to_float(ref[i]) - ideal[i]);
    worst = std::max(worst, err / (std::fabs(ideal[i]) + floor * r));
  }
  return worst;
}


const ModelShape kShape{256, 128, 192, 4, 8};  // SI not a multiple of I

}  // namespace

TEST_CASE("references read the layouts bit-identically to the ModelOpt form", "[reference]") {
  const Model m = make_model(kShape, 11);
  const SyntheticInputs in = make_inputs(kShape, 3, 12, {0.2, false});
  const GateUpRef ref = gate_up_ref(in.x, in.ids, in.K, m.routed, m.shared);
  const GateUpRef naive = naive_gate_up(m, in);
  CHECK(ref.act == naive.act);
  CHECK(ref.sact == naive.sact);
  const DownCombineRef down =
      down_combine_ref(ref.act, in.ids, in.tw, ref.sact, in.K, m.routed, m.shared);
  CHECK(down.out == naive_down_combine(m, in, ref.act, ref.sact));
}

TEST_CASE("fp32 references stay within rounding of the float64 ideal", "[reference]") {
  const uint64_t seed = GENERATE(21, 23, 25);
  const Model m = make_model(kShape, seed);
  const SyntheticInputs in = make_inputs(kShape, 3, seed + 1);
  const GateUpRef ref = gate_up_ref(in.x, in.ids, in.K, m.routed, m.shared);
  const GateUpIdeal ideal = gate_up_ideal(in.x, in.ids, in.K, m.routed, m.shared);
  // One bf16 rounding is <= 2^-8 relative (8-bit significand); fp32 sums and the approximate
  // sigmoid add far less except near cancellations, which the 1%-of-rms floor absorbs.
  CHECK(max_rel_error(ref.act, ideal.act, 0.01) < 0x1p-7);
  // Shared: gb, ub, s and sact are each rounded (4 x 2^-8), and SiLU's relative condition
  // number 1 + |g| (1 - sigmoid(g)) amplifies gb's rounding for negative g.
  CHECK(max_rel_error(ref.sact, ideal.sact, 0.01) < 0x1p-5);

  // down_combine alone: same act for both, so the error is the roundings of y_j, acc, ys and out,
  // each <= 2^-8 of its magnitude, all bounded by the section 8 scale: < 4 * 2^-8 * scale.
  const DownCombineRef down =
      down_combine_ref(ref.act, in.ids, in.tw, ref.sact, in.K, m.routed, m.shared);
  const std::vector<double> exact = down_combine_ideal(
      to_double(ref.act), in.ids, in.tw, to_double(ref.sact), in.K, m.routed, m.shared);
  for (std::size_t o = 0; o < exact.size(); ++o) {
    CAPTURE(o, exact[o], down.scale[o]);
    REQUIRE(std::fabs(bf16_bits_to_float(down.out[o]) - exact[o]) <= 0x1p-6 * down.scale[o]);
  }
  // End to end, bf16 act errors propagate through the down sums: a norm-wise bound.
  const std::vector<double> e2e =
      down_combine_ideal(ideal.act, in.ids, in.tw, ideal.sact, in.K, m.routed, m.shared);
  double err2 = 0, ref2 = 0;
  for (std::size_t o = 0; o < e2e.size(); ++o) {
    const double d = bf16_bits_to_float(down.out[o]) - e2e[o];
    err2 += d * d;
    ref2 += e2e[o] * e2e[o];
  }
  CHECK(std::sqrt(err2 / ref2) < 0x1p-6);
}

TEST_CASE("the down reference's control orders stay within rounding of the ideal", "[reference]") {
  // `moegemv check --control-only` sums the down's dot products in 4 blocks and exactly (0): other
  // valid orders, so each must keep the same float64 bound as the SPEC order.
  const Model m = make_model(kShape, 31);
  const SyntheticInputs in = make_inputs(kShape, 3, 32);
  const GateUpRef ref = gate_up_ref(in.x, in.ids, in.K, m.routed, m.shared);
  const std::vector<double> exact = down_combine_ideal(
      to_double(ref.act), in.ids, in.tw, to_double(ref.sact), in.K, m.routed, m.shared);
  const DownCombineRef spec = down_combine_ref(ref.act, in.ids, in.tw, ref.sact, in.K, m.routed, m.shared);
  for (const int blocks : {4, 0}) {
    const DownCombineRef down =
        down_combine_ref(ref.act, in.ids, in.tw, ref.sact, in.K, m.routed, m.shared, blocks);
    CHECK(down.scale.size() == spec.scale.size());
    for (std::size_t o = 0; o < exact.size(); ++o) {
      CAPTURE(blocks, o, exact[o], down.scale[o]);
      REQUIRE(std::fabs(bf16_bits_to_float(down.out[o]) - exact[o]) <= 0x1p-6 * down.scale[o]);
    }
  }
}

TEST_CASE("ids < 0: zero act row, no contribution", "[reference]") {
  const Model m = make_model(kShape, 31);
  SyntheticInputs in = make_inputs(kShape, 3, 32);
  const SyntheticInputs full = in;
  in.ids[1] = -1;
  in.ids[6] = -7;
  const GateUpRef ref = gate_up_ref(in.x, in.ids, in.K, m.routed, m.shared);
  for (int p : {1, 6})
    for (int i = 0; i < kShape.I; ++i) {
      REQUIRE(ref.act[p * kShape.I + i] == 0);
      REQUIRE(ref.act_scale[p * kShape.I + i] == 0.0f);
    }
  const DownCombineRef skipped =
      down_combine_ref(ref.act, in.ids, in.tw, ref.sact, in.K, m.routed, m.shared);
  // The same pairs present with router weight 0 add fmaf(y, 0, acc) == acc: identical output.
  std::vector<float> tw = full.tw;
  tw[1] = tw[6] = 0.0f;
  const GateUpRef full_ref = gate_up_ref(full.x, full.ids, full.K, m.routed, m.shared);
  const DownCombineRef zero_weight =
      down_combine_ref(full_ref.act, full.ids, tw, full_ref.sact, full.K, m.routed, m.shared);
  CHECK(skipped.out == zero_weight.out);
}

TEST_CASE("SI == 0: no shared expert", "[reference]") {
  const ModelShape shape{128, 64, 0, 2, 4};
  const Model m = make_model(shape, 41);
  const SyntheticInputs in = make_inputs(shape, 2, 42);
  for (const SharedLayout& none : {m.shared, SharedLayout{}}) {
    const GateUpRef ref = gate_up_ref(in.x, in.ids, in.K, m.routed, none);
    CHECK(ref.sact.empty());
    CHECK(ref.act == naive_gate_up(m, in).act);
    const DownCombineRef down = down_combine_ref(ref.act, in.ids, in.tw, {}, in.K, m.routed, none);
    CHECK(down.out == naive_down_combine(m, in, ref.act, {}));
  }
}

TEST_CASE("reference argument errors name the argument", "[reference]") {
  const ModelShape shape{128, 64, 64, 2, 4};
  const Model m = make_model(shape, 51);
  SyntheticInputs in = make_inputs(shape, 2, 52);
  const GateUpRef ref = gate_up_ref(in.x, in.ids, in.K, m.routed, m.shared);
  auto gate_up = [&] { gate_up_ref(in.x, in.ids, in.K, m.routed, m.shared); };
  auto down = [&] { down_combine_ref(ref.act, in.ids, in.tw, ref.sact, in.K, m.routed, m.shared); };
  in.ids[3] = 4;  // == E
  CHECK(argument_of(gate_up) == "ids");
  CHECK(argument_of(down) == "ids");
  in.ids[3] = 0;
  in.x.pop_back();
  CHECK(argument_of(gate_up) == "x");
  in.tw.pop_back();
  CHECK(argument_of(down) == "tw");
  CHECK(argument_of([&] { gate_up_ref(ref.act, in.ids, 0, m.routed, m.shared); }) == "K");
  SharedLayout other = to_shared_layout(make_shared_weights({192, 64, 64, 2, 4}, 1));
  CHECK(argument_of([&] { gate_up_ref(in.x, in.ids, 2, m.routed, other); }) == "shared.H");
}

TEST_CASE("approximate sigmoid emulation", "[reference]") {
  CHECK(routed_silu_mul(2.0f, 0.0f) == 0.0f);
  CHECK(routed_silu_mul(3.0f, 100.0f) == 300.0f);  // ex2 underflows to 0, r = 1
  CHECK(routed_silu_mul(3.0f, -100.0f) == 0.0f);   // ex2 overflows to Inf, r = 0
  CHECK(routed_silu_mul(1.0f, 1.0f) == Approx(1.0 / (1.0 + std::exp(-1.0))).epsilon(1e-6));
  CHECK(ex2_approx_ftz(-130.0f) == 0.0f);  // 2^-130 is subnormal: flushed
  CHECK(ex2_approx_ftz(3.0f) == 8.0f);
  CHECK(rcp_approx_ftz(0x1p127f) == 0.0f);  // 2^-127 is subnormal: flushed
  CHECK(rcp_approx_ftz(4.0f) == 0.25f);
}

TEST_CASE("compare_bf16 implements the section 8 bar", "[reference]") {
  std::vector<uint16_t> ref(1000), got;
  std::vector<float> scale(1000, 0.0f);
  for (int i = 0; i < 1000; ++i) ref[i] = float_to_bf16_bits(1.0f + i / 64.0f);
  got = ref;
  CHECK(compare_bf16(got, ref, scale).pass());
  CHECK(compare_bf16(got, ref, scale).bit_identical == 1000);

  got[5] = static_cast<uint16_t>(ref[5] + 2);  // 2 ulp: within the bound
  const CompareResult two_ulp = compare_bf16(got, ref, scale);
  CHECK(two_ulp.pass());
  CHECK(two_ulp.max_ulp == Approx(2.0));
  got[5] = static_cast<uint16_t>(ref[5] + 3);
  CHECK_FALSE(compare_bf16(got, ref, scale).pass());
  scale[5] = 256.0f * 3 * static_cast<float>(ulp_bf16(bf16_bits_to_float(ref[5])));
  CHECK(compare_bf16(got, ref, scale).pass());  // the 2^-8 * scale allowance covers it

  got = ref;
  for (int i = 0; i < 20; ++i) got[i * 50] = static_cast<uint16_t>(ref[i * 50] + 1);
  const CompareResult few = compare_bf16(got, ref, scale);
  CHECK(few.over_bound == 0);
  CHECK_FALSE(few.pass());  // 98% bit-identical < 99%
  got = ref;
  got[7] = kPoisonBf16;
  got[8] = 0x7FC0;
  const CompareResult bad = compare_bf16(got, ref, scale);
  CHECK(bad.unwritten == 1);
  CHECK(bad.nan == 1);
  CHECK(bad.first_bad == 7);
  CHECK_FALSE(bad.pass());
  INFO(bad.summary());
  CHECK(bad.summary().rfind("FAIL", 0) == 0);
  CHECK(argument_of([&] { compare_bf16(got, ref, std::vector<float>(3)); }) == "scale");
}
