// gate_up's scale-after candidate (templates/tile_after.cuh, split_after.cuh; gu_safter=1): the
// lane algebra of both routed tiles emulated on the CPU in double precision, as
// test_slot_after.cpp does for the down's, and the knob. Each emulation follows one row set over
// whole steps as the warp's 32 lanes compute it, with the kernel's choices written as it makes
// them: which B lanes read x (and of which half) and which the zero row, which C entries a lane
// keeps, which scale bytes multiply them (the u32 at q = e0 / 64 + (t & 1) of its rows, e0 the
// step's or half's first element; bytes 0, 2 for words 0, 1 and 1, 3 for words 2, 3), the
// shuffles, which lanes store, and the units (raw weights e2m1 * 2^-132, x * 2^kSafterActShift,
// x 2^kSafterSumShift at the store, x 2^kDecodeShift after). The mma is its definition over the
// PTX ISA's m16n8k16 fragments (B lane (g, t) supplies column g at lane t's k; C lane (g, t) holds
// D[g][2t], D[g][2t + 1], D[g + 8][2t], D[g + 8][2t + 1]). The GPU check
// (`MOEGEMV_TUNE=gu_safter=1 moegemv check`) is the test of the kernels themselves.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "fp4_values.hpp"
#include "jit/codegen.hpp"
#include "moegemv/errors.hpp"
#include "templates/params.h"

using namespace moegemv;

namespace {

// D of one pair of words (pair 0: words 0, 1; pair 1: words 2, 3), two mmas per word by their
// definition: a(r, kl) is mma row r's raw weight at element kl of the step (or half), owned by
// lane t = kl / 32; b(n, t, kl) is B column n's value there as lane (n, t) supplies it.
template <class A, class B>
void pair_d(int pair, A a, B b, double (&d)[16][8]) {
  for (auto& row : d)
    for (double& v : row) v = 0;
  for (int w = 2 * pair; w < 2 * pair + 2; ++w)
    for (int r = 0; r < 16; ++r)
      for (int owner = 0; owner < 4; ++owner)
        for (int e = 0; e < 8; ++e) {
          const int kl = 32 * owner + 8 * w + e;
          const double av = a(r, kl);
          for (int n = 0; n < 8; ++n) d[r][n] += av * b(n, owner, kl);
        }
}

// Random up and gate rows of `features` features over kLen elements, x, and the exact sums.
struct TileData {
  static constexpr int kLen = 512;
  std::vector<int> code[2][8], scale[2][8];  // [kind][feature]: kind 0 the up row, 1 the gate row
  std::vector<double> x;
  double reference[2][8] = {};

  TileData(std::mt19937& rng, int features) {
    std::uniform_int_distribution<int> code_of(0, 15), scale_of(0x01, 0x7E);
    std::uniform_real_distribution<double> x_of(-4.0, 4.0);
    for (int k = 0; k < kLen; ++k) x.push_back(std::ldexp(std::round(x_of(rng) * 64), -6));
    for (int kind = 0; kind < 2; ++kind) {
      for (int j = 0; j < features; ++j) {
        for (int b = 0; b < kLen / 16; ++b) scale[kind][j].push_back(scale_of(rng));
        for (int k = 0; k < kLen; ++k) {
          code[kind][j].push_back(code_of(rng));
          reference[kind][j] += e2m1_value(code[kind][j][k]) * e4m3_value(scale[kind][j][k / 16]) * x[k];
        }
      }
    }
  }
  // The products of the lane's C entries (rows r and r + 8 ... as given) and their scales.
  double scaled(int kind, int feature, int q, int pair, double c_a, double c_b) const {
    const std::vector<int>& sc = scale[kind][feature];
    return c_a * e4m3_value(sc[4 * q + (pair == 0 ? 0 : 1)]) + c_b * e4m3_value(sc[4 * q + (pair == 0 ? 2 : 3)]);
  }
};

}  // namespace

TEST_CASE("gu_safter's split tile sums each feature's up and gate rows exactly (CPU emulation)",
          "[codegen]") {
  std::mt19937 rng(20);
  for (int trial = 0; trial < 20; ++trial) {
    const TileData data(rng, 4);  // one row set: features 0..3
    const auto& code = data.code;
    const auto& x = data.x;
    double acc[2][32] = {};  // per lane: the up and the gate sum
    for (int s = 0; s < TileData::kLen / 256; ++s) {
      for (int pair = 0; pair < 2; ++pair) {  // words 0, 1 (one k-block per lane), then 2, 3
        double d[16][8];
        // Row r: g = r % 8 is half g & 1 of feature g / 2's up (r < 8) or gate row.
        auto a = [&](int r, int kl) {
          const int g = r % 8;
          return std::ldexp(e2m1_value(code[r / 8][g / 2][256 * s + 128 * (g & 1) + kl]), -132);
        };
        // Column n: lane (n, t) reads x of half n >> 2 iff t == n % 4, else the zero row.
        auto b = [&](int n, int t, int kl) {
          return t == n % 4 ? std::ldexp(x[256 * s + 128 * (n >> 2) + kl], kSafterActShift) : 0.0;
        };
        pair_d(pair, a, b, d);
        for (int lane = 0; lane < 32; ++lane) {
          const int g = lane / 4, t = lane % 4;
          const int e0 = 256 * s + 128 * (g & 1), q = e0 / 64 + (t & 1);
          for (int kind = 0; kind < 2; ++kind)
            acc[kind][lane] +=
                data.scaled(kind, g / 2, q, pair, d[g + 8 * kind][2 * t], d[g + 8 * kind][2 * t + 1]);
        }
      }
    }
    for (int kind = 0; kind < 2; ++kind) {
      double v1[32], v2[32];
      for (int lane = 0; lane < 32; ++lane) v1[lane] = acc[kind][lane] + acc[kind][lane ^ 1];
      for (int lane = 0; lane < 32; ++lane) v2[lane] = v1[lane] + v1[lane ^ 6];
      for (int lane = 0; lane < 32; lane += 8) {  // the storing lanes: feature lane / 8
        const double stored = std::ldexp(v2[lane], kSafterSumShift + kDecodeShift);
        INFO("trial " << trial << " kind " << kind << " feature " << lane / 8);
        CHECK(stored == Approx(data.reference[kind][lane / 8]).epsilon(1e-12).margin(1e-12));
      }
    }
  }
}

TEST_CASE("gu_safter's 16-row tile sums each feature's up and gate rows exactly (CPU emulation)",
          "[codegen]") {
  std::mt19937 rng(21);
  for (int trial = 0; trial < 20; ++trial) {
    const TileData data(rng, 8);  // features 0..7: mma rows g (up) and g + 8 (gate)
    double acc[2][32] = {};
    for (int s = 0; s < TileData::kLen / 128; ++s) {
      for (int pair = 0; pair < 2; ++pair) {
        double d[16][8];
        auto a = [&](int r, int kl) { return std::ldexp(e2m1_value(data.code[r / 8][r % 8][128 * s + kl]), -132); };
        // Column n: lane (n, t) reads x iff n < 4 and t == n, else the zero row.
        auto b = [&](int n, int t, int kl) {
          return n < 4 && t == n ? std::ldexp(data.x[128 * s + kl], kSafterActShift) : 0.0;
        };
        pair_d(pair, a, b, d);
        for (int lane = 0; lane < 32; ++lane) {
          const int g = lane / 4, t = lane % 4, q = 128 * s / 64 + (t & 1);
          for (int kind = 0; kind < 2; ++kind)
            acc[kind][lane] += data.scaled(kind, g, q, pair, d[g + 8 * kind][2 * t], d[g + 8 * kind][2 * t + 1]);
        }
      }
    }
    for (int kind = 0; kind < 2; ++kind) {
      for (int lane = 0; lane < 32; lane += 4) {  // lanes (g, 0) store feature g: + lane (g, 1)
        const double stored = std::ldexp(acc[kind][lane] + acc[kind][lane ^ 1], kSafterSumShift + kDecodeShift);
        INFO("trial " << trial << " kind " << kind << " feature " << lane / 4);
        CHECK(stored == Approx(data.reference[kind][lane / 4]).epsilon(1e-12).margin(1e-12));
      }
    }
  }
}

// The knob: where it applies (the classic gate_up's routed tiles), its define and zero row, and
// an error naming it where they are asked for without what it needs.
TEST_CASE("gu_safter=1: where it applies, its define, shared memory and errors", "[codegen]") {
  const Key ds{Kind::kGateUp, 7168, 2048, 2048, 8};
  // The presets' shapes: the split tile (DeepSeek-V3, GLM-4.5) or the 16-row one (Llama-4,
  // Qwen3-Next), and DeepSeek-V3's with the split asked off.
  for (const auto& [key, tune] : {std::pair{ds, "gu_safter=1"},
                                  std::pair{Key{Kind::kGateUp, 5120, 1536, 1536, 8}, "gu_safter=1"},
                                  std::pair{Key{Kind::kGateUp, 5120, 8192, 8192, 1}, "gu_safter=1"},
                                  std::pair{Key{Kind::kGateUp, 2048, 512, 512, 10}, "gu_safter=1"},
                                  std::pair{ds, "gu_safter=1,gu_split=0"}}) {
    INFO(key.str() << " " << tune);
    CHECK(jit::kernel_config(key, "").safter == 0);
    CHECK(jit::generate_source(key, "sm_90", "").find("MOEGEMV_GU_SAFTER") == std::string::npos);
    const KernelConfig c = jit::kernel_config(key, tune);
    CHECK(c.safter == 1);
    CHECK(jit::generate_source(key, "sm_90", tune).find("#define MOEGEMV_GU_SAFTER 1") != std::string::npos);
    // The same, without it (and without the split M = 1 kernel, which gives way to it: v60's
    // 4-warp M = 1 kernel takes more shared memory for its partial sums).
    const std::string off = std::string(tune).replace(0, 11, "gu_safter=0") + ",gu_m1split=0";
    CHECK(jit::smem_bytes(key, c) ==
          jit::smem_bytes(key, jit::kernel_config(key, off)) + gate_up_safter_zero_bytes(key.h));
  }
  for (const char* tune : {"gu_safter=1,gu_stage=0", "gu_safter=1,gu_direct=1", "gu_safter=1,gu_ring=1"})
    CHECK_THROWS_WITH(jit::kernel_config(ds, tune), Catch::Contains("gu_safter=1"));
  CHECK_THROWS_WITH(jit::kernel_config(ds, "gu_safter=2"), Catch::Contains("gu_safter=2"));
  // Where the classic routed tiles do not run (the streaming gate_up; H % 128 != 0: tail steps)
  // it does not apply, as other tile knobs.
  for (const auto& [key, tune] : {std::pair{ds, "gu_safter=1,gu_stream=1"},
                                  std::pair{Key{Kind::kGateUp, 2112, 512, 512, 8}, "gu_safter=1"}}) {
    INFO(key.str() << " " << tune);
    CHECK(jit::kernel_config(key, tune).safter == 0);
    CHECK(jit::generate_source(key, "sm_90", tune).find("MOEGEMV_GU_SAFTER") == std::string::npos);
  }
  // The down's knob is dc_safter: gu_safter leaves the down as it is.
  CHECK(jit::kernel_config(Key{Kind::kDownCombine, 7168, 2048, 2048, 8}, "gu_safter=1").safter == 0);
}
