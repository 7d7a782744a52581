// The scale-after candidate's lane algebra (templates/slot_after.cuh, dc_safter=1), emulated on
// the CPU in double precision: one output row of a unit, its lo and hi K halves, as the quad's 4
// lanes (t = 0..3) compute it. What is emulated is the kernel's choices, each written as the kernel
// makes it: which lanes' B values are act (t == n % 4, the hi half for n >= 4) and which are 0,
// which C entries a lane keeps (rows g + 8 for t >= 2), which scale bytes multiply them (the u32
// of atom 2s + (t & 1) of the lo or hi row), and the units (raw weights e2m1 * 2^-132, act x
// 2^kSafterActShift, x 2^kSafterSumShift at the hand-over, x 2^kDecodeShift in the combiner). The
// mma itself is its definition, D[m][n] += sum_k A[m][k] B[k][n], over the PTX ISA's m16n8k16
// fragments (C: lane (g, t) holds D[g][2t], D[g][2t + 1], D[g + 8][2t], D[g + 8][2t + 1]).
// The GPU check (`MOEGEMV_TUNE=dc_safter=1 moegemv check`) is the test of the kernel itself.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "fp4_values.hpp"
#include "jit/codegen.hpp"
#include "moegemv/errors.hpp"
#include "templates/params.h"

TEST_CASE("the scale-after form's lane algebra sums each row exactly (CPU emulation)", "[codegen]") {
  using moegemv::kDecodeShift;
  using moegemv::kSafterActShift;
  using moegemv::kSafterSumShift;
  constexpr int kLen = 512;  // one K half: 2 steps of 128 elements, 32 blocks, 8 scale atoms
  std::mt19937 rng(19);
  std::uniform_int_distribution<int> code_of(0, 15), scale_of(0x01, 0x7E);
  std::uniform_real_distribution<double> act_of(-4.0, 4.0);
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<int> code[2], scale[2];  // [0]: the lo K half (mma row g), [1]: the hi half (g + 8)
    std::vector<double> act[2];
    double reference = 0;
    for (int h = 0; h < 2; ++h) {
      for (int b = 0; b < kLen / 16; ++b) scale[h].push_back(scale_of(rng));
      for (int k = 0; k < kLen; ++k) {
        code[h].push_back(code_of(rng));
        act[h].push_back(std::ldexp(std::round(act_of(rng) * 64), -6));  // exact in bf16
        reference += e2m1_value(code[h][k]) * e4m3_value(scale[h][k / 16]) * act[h][k];
      }
    }
    double share[4] = {0, 0, 0, 0};
    for (int s = 0; s < kLen / 128; ++s) {
      for (int pair = 0; pair < 2; ++pair) {  // words 0, 1 (one k-block per lane), then 2, 3
        double d[2][8] = {};                  // D rows g and g + 8, columns 0..7: a fresh D per pair
        for (int w = 2 * pair; w < 2 * pair + 2; ++w) {
          for (int owner = 0; owner < 4; ++owner) {  // the lane t whose word holds these k
            for (int e = 0; e < 8; ++e) {
              const int k = 128 * s + 32 * owner + 8 * w + e;
              for (int n = 0; n < 8; ++n) {
                // B column n is supplied by lanes (g = n, t): act iff t == n % 4, else the zero row.
                const double bv = owner == n % 4 ? std::ldexp(act[n >= 4][k], kSafterActShift) : 0.0;
                d[0][n] += std::ldexp(e2m1_value(code[0][k]), -132) * bv;
                d[1][n] += std::ldexp(e2m1_value(code[1][k]), -132) * bv;
              }
            }
          }
        }
        for (int t = 0; t < 4; ++t) {
          const bool upper = t >= 2;
          const int atom = 2 * s + (t & 1);  // of the lo row (t < 2) or the hi row
          const std::vector<int>& row_scales = scale[upper ? 1 : 0];
          const double c_a = d[upper ? 1 : 0][2 * t], c_b = d[upper ? 1 : 0][2 * t + 1];
          share[t] += c_a * e4m3_value(row_scales[4 * atom + (pair == 0 ? 0 : 1)]) +
                      c_b * e4m3_value(row_scales[4 * atom + (pair == 0 ? 2 : 3)]);
        }
      }
    }
    const double handed = std::ldexp(share[0] + share[1] + share[2] + share[3], kSafterSumShift);
    const double combined = std::ldexp(handed, kDecodeShift);
    INFO("trial " << trial);
    CHECK(combined == Approx(reference).epsilon(1e-12).margin(1e-12));
  }
}

// The knob: a zero row more in shared memory, its define, and an error naming it where its
// conditions do not hold (off by default).
TEST_CASE("dc_safter=1: its define, shared memory and errors", "[codegen]") {
  using namespace moegemv;
  const Key dc{Kind::kDownCombine, 7168, 2048, 2048, 8}, glm{Kind::kDownCombine, 5120, 1536, 1536, 8};
  CHECK(jit::kernel_config(dc, "").safter == 0);
  CHECK(jit::generate_source(dc, "sm_90", "").find("MOEGEMV_DC_SAFTER") == std::string::npos);
  CHECK(jit::generate_source(dc, "sm_90", "dc_safter=1").find("#define MOEGEMV_DC_SAFTER 1") !=
        std::string::npos);
  CHECK(jit::smem_bytes(dc, jit::kernel_config(dc, "dc_safter=1")) ==
        jit::smem_bytes(dc) + down_safter_zero_bytes(dc.i, dc.si, jit::kernel_config(dc, "").chunks));
  CHECK(jit::kernel_config(glm, "dc_safter=1").pipe == jit::kernel_config(glm, "").pipe);
  CHECK_THROWS_WITH(jit::kernel_config(dc, "dc_safter=1,dc_sahead=2"), Catch::Contains("dc_safter=1"));
  CHECK_THROWS_WITH(jit::kernel_config(dc, "dc_safter=1,dc_wstage=0"), Catch::Contains("dc_safter=1"));
  CHECK_THROWS_WITH(jit::kernel_config(Key{Kind::kDownCombine, 3072, 1024, 1536, 6}, "dc_safter=1"),
                    Catch::Contains("dc_safter=1"));  // SI neither 0 nor I: uneven steps
  CHECK(jit::kernel_config(Key{Kind::kDownCombine, 2048, 1408, 5632, 4}, "dc_safter=1").safter == 0);
  CHECK_THROWS_WITH(jit::kernel_config(dc, "dc_safter=2"), Catch::Contains("dc_safter=2"));
  CHECK(jit::generate_source(Key{Kind::kGateUp, 7168, 2048, 2048, 8}, "sm_90", "dc_safter=1")
            .find("MOEGEMV_DC_SAFTER") == std::string::npos);
}

// The form's register cap (jit/codegen_safter.cpp): room for one gate_up CTA beside the down CTA,
// unless dc_maxreg is given; none where the default already caps (two down CTAs per SM) or where
// the bound leaves room anyway (it only lowers what the launch bounds allow).
TEST_CASE("dc_safter=1 caps the down's registers so a gate_up CTA fits beside it", "[codegen]") {
  using namespace moegemv;
  const Key dc{Kind::kDownCombine, 7168, 2048, 2048, 8}, glm{Kind::kDownCombine, 5120, 1536, 1536, 8};
  for (const Key& key : {dc, glm}) {
    const KernelConfig c = jit::kernel_config(key, "dc_safter=1");
    const KernelConfig g =
        jit::kernel_config(Key{Kind::kGateUp, key.h, key.i, key.si, key.k}, "dc_safter=1");
    const int threads = 32 * (c.warps + stream_extra_warps(false));
    INFO(key.str() << ": " << threads << " threads, cap " << c.maxreg);
    CHECK(c.maxreg == 72);
    CHECK(c.maxreg % 8 == 0);  // whole allocation units (256 registers per warp)
    CHECK(threads * c.maxreg + kSmRegisters / g.min_blocks <= kSmRegisters);
    CHECK(threads * (c.maxreg + 8) + kSmRegisters / g.min_blocks > kSmRegisters);  // the largest
    CHECK(jit::generate_source(key, "sm_90", "dc_safter=1").find("__maxnreg__(72)") != std::string::npos);
    CHECK(jit::kernel_config(key, "dc_safter=1,dc_maxreg=0").maxreg == 0);
    CHECK(jit::kernel_config(key, "dc_safter=1,dc_maxreg=96").maxreg == 96);
    CHECK(jit::kernel_config(key, "dc_safter=0").maxreg == 0);
  }
  // Qwen3-Next: the two-per-SM default cap stays.
  CHECK(jit::kernel_config(Key{Kind::kDownCombine, 2048, 512, 512, 10}, "dc_safter=1").maxreg ==
        kDownTwoPerSmRegs);
}

// The default since v48 (defaults.h down_safter_default with kDownSafterByDefault, session 22):
// on where the A/Bs gained and its conditions hold, off on DeepSeek-V3's shape; dc_safter=0 turns
// it off, and where it does not apply the default gives way silently while an asked-for
// dc_safter=1 is an error.
TEST_CASE("dc_safter's default rule: where it gained, and only where it applies", "[codegen]") {
  using namespace moegemv;
  auto down = [](int h, int i, int si, int k) { return Key{Kind::kDownCombine, h, i, si, k}; };
  CHECK_FALSE(down_safter_default(2048, 8));  // DeepSeek-V3, Kimi-K2
  CHECK(down_safter_default(1536, 8));        // GLM-4.5
  CHECK(down_safter_default(8192, 1));        // Llama-4
  CHECK(down_safter_default(512, 10));        // Qwen3-Next
  const int on = 1;  // v48
  CHECK(jit::kernel_config(down(7168, 2048, 2048, 8), "").safter == 0);
  CHECK(jit::kernel_config(down(5120, 1536, 1536, 8), "").safter == on);
  CHECK(jit::kernel_config(down(5120, 8192, 8192, 1), "").safter == on);
  CHECK(jit::kernel_config(down(2048, 512, 512, 10), "").safter == on);
  CHECK(jit::kernel_config(down(5120, 1536, 1536, 8), "dc_safter=0").safter == 0);
  for (const Key& key : {down(3072, 1024, 1536, 6), down(2048, 1408, 5632, 4), down(1088, 192, 320, 3)}) {
    INFO(key.str());
    CHECK(jit::kernel_config(key, "").safter == 0);
  }
  CHECK_THROWS_WITH(jit::kernel_config(down(5120, 1536, 1536, 8), "dc_sahead=2,dc_safter=1"),
                    Catch::Contains("dc_safter=1"));
  CHECK(jit::kernel_config(down(5120, 1536, 1536, 8), "dc_sahead=2").safter == 0);
  CHECK(jit::kernel_config(Key{Kind::kGateUp, 5120, 1536, 1536, 8}, "").safter == 0);  // gate_up's stays off
}
