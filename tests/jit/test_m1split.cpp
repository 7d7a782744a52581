// gate_up's M = 1 kernel on the split tile (gu_m1split, v57, session 32): where it is the default,
// what it sets, what its source instantiates, and where it gives way or is an error.
// `moegemv check` on the device is the test of the kernels' sums.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <string>
#include <utility>

#include "jit/codegen.hpp"
#include "moegemv/errors.hpp"
#include "templates/params.h"

namespace {

using namespace moegemv;

const Key kLlama{Kind::kGateUp, 5120, 8192, 8192, 1};
const Key kDeepSeek{Kind::kGateUp, 7168, 2048, 2048, 8};

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE(
    "gu_m1split: Llama-4's M = 1 kernel takes the split tile, its other kernel the 16-row one",
    "[codegen]") {
  const KernelConfig c = jit::kernel_config(kLlama, "");
  CHECK((c.split == 0 && c.m1_split == 1 && c.shx == 2 && c.m1_pipe == 2 && c.m1_minb == 4));
  CHECK(c.min_blocks == 5);  // the general kernel as in v55: 20 resident warps
  CHECK(jit::has_single_token_kernel(c));
  const std::string src = jit::generate_source(kLlama, "sm_90", "");
  // shx (the argument after SPLIT): 2 in the split M = 1 kernel only.
  CHECK(has(src,
            "__launch_bounds__(128, 5)\nmoegemv_gate_up_5120_8192_8192_1(const __grid_constant__ "
            "moegemv::GateUpParams p) {\n  moegemv::gate_up<5120, 8192, 8192, 1, 4, 2, false, "
            "false, 0, false, 0>(p);"));
  CHECK(
      has(src,
          "__launch_bounds__(128, 4)\nmoegemv_gate_up_5120_8192_8192_1_m1(const __grid_constant__ "
          "moegemv::GateUpParams p) {\n  moegemv::gate_up<5120, 8192, 8192, 1, 4, 2, false, "
          "false, 0, true, 2>(p);"));
  // The down's register cap follows gate_up's general kernel: unchanged from v55.
  const Key down{Kind::kDownCombine, 5120, 8192, 8192, 1};
  CHECK(jit::kernel_config(down, "").maxreg == jit::kernel_config(down, "gu_m1split=0").maxreg);
  // Not on DeepSeek-V3's and GLM-4.5's shapes (the split tile at every M).
  for (const Key& key : {kDeepSeek, Key{Kind::kGateUp, 5120, 1536, 1536, 8}}) {
    INFO(key.str());
    CHECK(jit::kernel_config(key, "").m1_split == 0);
    CHECK(jit::generate_source(key, "sm_90", "") ==
          jit::generate_source(key, "sm_90", "gu_m1split=0"));
  }
}

TEST_CASE("gu_m1split: on by default where H <= 2048 (v58), in one wave of 6 CTAs/SM (v59); "
          "v60's 4 warps at 1 step there with gu_m1warps=4 (or by default, kGateUpM1WideByDefault)",
          "[codegen]") {
  // Qwen3-Next, Qwen3.5-35B, Qwen2-MoE, Qwen3-30B (no shared expert): 2-warp CTAs in the general
  // kernel (2 steps, 10 CTAs/SM); the M = 1 kernel with shx 2, where its grid of (K * I + SI) / 8
  // CTAs is one wave of 6 on 132 SMs (704, 576, 768 CTAs) at 6 CTAs/SM (v59), of 4 warps at 1
  // step with v60, and where it is not (Qwen2-MoE's 1408) 2 warps, 2 steps, 8 CTAs/SM.
  // v61: v60's kernel at 5 CTAs/SM where its grid is one wave of 5 (Qwen3.5-35B's 576 CTAs).
  struct M1 {
    Key key;
    int minb;       // v59's 2-warp kernel (and v60's where it is not one wave of 5)
    int wide_minb;  // v60's kernel, asked for or by default (4: the general 4-warp split's)
    bool wide;      // v60's kernel fits
  };
  for (const auto& [key, m1_minb, wide_minb, wide] :
       {M1{Key{Kind::kGateUp, 2048, 512, 512, 10}, 6, 6, true},
        M1{Key{Kind::kGateUp, 2048, 512, 512, 8}, 6, 5, true},
        M1{Key{Kind::kGateUp, 2048, 1408, 5632, 4}, 8, 4, false},
        M1{Key{Kind::kGateUp, 2048, 768, 0, 8}, 6, 6, true}}) {
    INFO(key.str());
    // v60 asked for (gu_m1warps=4) where it fits, and by default once kGateUpM1WideByDefault.
    // (Where the one wave does not hold, 4 warps get the split tile's 16 resident warps: 4/SM.)
    const KernelConfig w = jit::kernel_config(key, "gu_m1warps=4");
    CHECK((jit::single_token_warps(w) == 4 && w.m1_minb == wide_minb));
    CHECK(w.m1_pipe == (wide ? 1 : 2));
    const std::string wsrc = jit::generate_source(key, "sm_90", "gu_m1warps=4");
    CHECK(has(wsrc, fmt::format("__launch_bounds__(128, {})", wide_minb)));
    const bool by_default = wide && kGateUpM1WideByDefault;
    const int m1_warps = by_default ? 4 : 2, m1_pipe = by_default ? 1 : 2;
    const int default_minb = by_default ? wide_minb : m1_minb;
    const KernelConfig c = jit::kernel_config(key, "");
    CHECK((c.split == 0 && c.m1_split == 1 && c.shx == 2 && c.warps == 2));
    CHECK((c.m1_minb == default_minb && jit::single_token_warps(c) == m1_warps &&
           c.m1_pipe == m1_pipe));
    CHECK(jit::kernel_config(key, "gu_m1minb=8").m1_minb == 8);  // asked for: it wins
    // Shared memory for the wider of the two kernels' partial sums.
    CHECK(jit::smem_bytes(key) == key.h * 2 + gate_up_partials_bytes(m1_warps));
    const std::string src = jit::generate_source(key, "sm_90", "");
    CHECK(has(src, fmt::format("__launch_bounds__({}, {})", 32 * m1_warps, default_minb)));
    CHECK(has(src, "__launch_bounds__(64, 10)"));  // the general kernel
    const std::string head = fmt::format("moegemv::gate_up<{}, {}, {}, {}, ", key.h, key.i,
                                         key.si, key.k);
    // v62: the M = 1 kernel's TILES, DPRE where the down-weight prefetch applies (test_dpre.cpp).
    const std::string m1_end = c.dpre ? fmt::format(", 1, {}>(p);", c.dpre) : ">(p);";
    CHECK(c.dpre == (key.i == 1408 ? 0 : 2));  // all but Qwen2-MoE (12.9 MB of down a token)
    CHECK(has(src, head + fmt::format("{}, {}, false, false, 0, true, 2", m1_warps, m1_pipe) +
                       m1_end));                                      // the M = 1 kernel
    CHECK(has(src, head + "2, 2, false, false, 0, false, 0>(p);"));  // the general one
    // gu_m1warps=2 gives back v59's M = 1 kernel (2 steps), the general one unchanged.
    const std::string v59 = jit::generate_source(key, "sm_90", "gu_m1warps=2");
    CHECK(has(v59, fmt::format("__launch_bounds__(64, {})", m1_minb)));
    CHECK(has(v59, head + "2, 2, false, false, 0, true, 2" + m1_end));
    const KernelConfig two_steps = jit::kernel_config(key, "gu_m1warps=4,gu_m1pipe=2");
    CHECK(two_steps.m1_pipe == 2);  // asked: it wins, and v61's 5 CTAs/SM (1 step) gives way
    CHECK(two_steps.m1_minb == (wide ? 6 : 4));
    const std::string off = jit::generate_source(key, "sm_90", "gu_m1split=0");
    CHECK(has(off, head + "2, 3, false, false, 0, false, 0" + m1_end));  // v57's M = 1 kernel
    CHECK_FALSE(has(off, "true, 2>(p);"));
  }
  // H <= 2048 but H % 256 != 0: it gives way by default (the split needs 128-element halves).
  CHECK(jit::kernel_config(Key{Kind::kGateUp, 1920, 64, 0, 3}, "").m1_split == 0);
}

TEST_CASE("gu_m1split: off, given way, asked for, and its errors", "[codegen]") {
  // gu_m1split=0 gives back v55's M = 1 kernel: 3 steps on the 16-row tile, no shx.
  const KernelConfig off = jit::kernel_config(kLlama, "gu_m1split=0");
  CHECK((off.m1_split == 0 && off.shx == 0 && off.m1_pipe == 3 && off.m1_minb == 4 &&
         off.split == 0));
  const std::string off_src = jit::generate_source(kLlama, "sm_90", "gu_m1split=0");
  CHECK(has(off_src, "moegemv::gate_up<5120, 8192, 8192, 1, 4, 3, false, false, 0, false, 0>(p);"));
  CHECK_FALSE(has(off_src, "true, 2>(p);"));
  // Knobs named beside it win.
  CHECK(jit::kernel_config(kLlama, "gu_m1pipe=3").m1_pipe == 3);
  CHECK(jit::kernel_config(kLlama, "gu_m1minb=3").m1_minb == 3);
  CHECK(jit::kernel_config(kLlama, "gu_shx=0").shx == 0);
  // By default it gives way to what it cannot take, and the tune strings of sessions 27-31 mean
  // what they meant: the split everywhere, no M = 1 kernel, gu_safter's classic tiles.
  for (const std::string tune : {"gu_split=1", "gu_split=1,gu_shx=2,gu_m1pipe=0", "gu_m1pipe=0",
                                 "gu_safter=1", "gu_ring=1", "gu_direct=1", "gu_stream=1"}) {
    INFO(tune);
    const KernelConfig g = jit::kernel_config(kLlama, tune);
    CHECK(g.m1_split == 0);
    CHECK(jit::generate_source(kLlama, "sm_90", tune) ==
          jit::generate_source(kLlama, "sm_90", tune + ",gu_m1split=0"));
  }
  CHECK(jit::kernel_config(kLlama, "gu_split=1").shx == 0);
  CHECK(jit::kernel_config(kLlama, "gu_split=1").m1_pipe == 3);
  CHECK(jit::kernel_config(kLlama, "gu_split=1,gu_shx=2,gu_m1pipe=0").shx == 2);
  // Asked for where the shape has no M = 1 kernel by default: it gets one.
  const KernelConfig ds = jit::kernel_config(kDeepSeek, "gu_split=0,gu_m1split=1");
  CHECK((ds.m1_split == 1 && ds.m1_pipe == 2 && ds.shx == 2 && ds.m1_minb == 4));
  CHECK(has(jit::generate_source(kDeepSeek, "sm_90", "gu_split=0,gu_m1split=1"),
            "moegemv::gate_up<7168, 2048, 2048, 8, 4, 2, false, false, 0, true, 2>(p);"));
  // Asked for with what it cannot take: an error naming the knob.
  for (const std::string tune : {"gu_m1split=1,gu_split=1", "gu_m1split=1,gu_m1pipe=0",
                                 "gu_m1split=1,gu_safter=1", "gu_m1split=1,gu_stream=1"}) {
    INFO(tune);
    CHECK_THROWS_AS(jit::kernel_config(kLlama, tune), ArgumentError);
    CHECK_THROWS_WITH(jit::kernel_config(kLlama, tune), Catch::Contains("gu_m1split=1"));
  }
  CHECK_THROWS_WITH(jit::kernel_config(kDeepSeek, "gu_m1split=1"), Catch::Contains("gu_split=0"));
  // gu_m1warps: each warp whole 256-element steps of the split rows (H % (256 * N) == 0); by
  // default the split gives way where the module's warps do not (SplitDot drops a remainder):
  // Qwen2-MoE (two waves: the M = 1 kernel has the module's warps). Where v60's kernel is the
  // default (Qwen3-Next's one wave) the M = 1 kernel keeps its own 4 warps whatever gu_warps is.
  const Key qwen{Kind::kGateUp, 2048, 512, 512, 10}, qwen2{Kind::kGateUp, 2048, 1408, 5632, 4};
  CHECK_THROWS_WITH(jit::kernel_config(qwen, "gu_m1warps=3"), Catch::Contains("gu_m1warps"));
  CHECK(jit::kernel_config(qwen2, "gu_warps=3").m1_split == 0);
  CHECK(jit::kernel_config(qwen2, "gu_warps=4").m1_split == 1);
  const KernelConfig q3 = jit::kernel_config(qwen, "gu_warps=3");
  CHECK(q3.m1_split == (kGateUpM1WideByDefault ? 1 : 0));
  if (kGateUpM1WideByDefault) CHECK(jit::single_token_warps(q3) == 4);
  // The same for the general split tile (DeepSeek-V3: 7168 = 7 x 1024, not a multiple of 768).
  CHECK(jit::kernel_config(kDeepSeek, "").split == 1);
  CHECK(jit::kernel_config(kDeepSeek, "gu_warps=3").split == 0);
  CHECK(jit::kernel_config(kDeepSeek, "gu_warps=2").split == 1);
  CHECK(jit::single_token_warps(jit::kernel_config(kLlama, "gu_m1warps=2")) == 2);
  CHECK(has(jit::generate_source(kLlama, "sm_90", "gu_m1warps=2"),
            "moegemv::gate_up<5120, 8192, 8192, 1, 2, 2, false, false, 0, true, 2>(p);"));
  // No M = 1 kernel (gu_m1pipe=0): nothing for gu_m1warps to set.
  CHECK(jit::kernel_config(kLlama, "gu_m1pipe=0,gu_m1warps=2").m1_warps == 0);
  CHECK_FALSE(has(jit::generate_source(kLlama, "sm_90", "gu_m1pipe=0,gu_m1warps=2"), "_m1("));
  CHECK_THROWS_WITH(jit::kernel_config(kLlama, "gu_m1warps=9"), Catch::Contains("gu_m1warps=9"));
  CHECK_THROWS_WITH(jit::kernel_config(kLlama, "gu_m1split=2"), Catch::Contains("gu_m1split=2"));
  CHECK_THROWS_WITH(
      jit::kernel_config(Key{Kind::kDownCombine, 5120, 8192, 8192, 1}, "dc_m1split=1"),
      Catch::Contains("dc_m1split=1"));
}
