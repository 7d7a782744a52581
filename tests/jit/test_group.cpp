// The grouped streaming down (templates/down_group.cuh, session 12): where the config has it,
// how MOEGEMV_TUNE sets it, what the module holds, and that it compiles without spills.
#include <catch2/catch.hpp>

#include <string>

#include "jit/codegen.hpp"
#include "jit/nvrtc.hpp"
#include "moegemv/errors.hpp"
#include "templates/down_group_params.h"

using namespace moegemv;

namespace {
const Key kDeepSeek{Kind::kDownCombine, 7168, 2048, 2048, 8};
const Key kGlm{Kind::kDownCombine, 5120, 1536, 1536, 8};
const Key kQwenNext{Kind::kDownCombine, 2048, 512, 512, 10};
const Key kLlama4{Kind::kDownCombine, 5120, 8192, 8192, 1};
}  // namespace

TEST_CASE("the grouped down is on from M = 8 or 16 where K >= 8 and I >= 1024, and tunable", "[codegen]") {
  CHECK(jit::kernel_config(kDeepSeek, "").group == 16);
  CHECK(jit::kernel_config(kGlm, "").group == 8);
  CHECK(jit::kernel_config(kQwenNext, "").group == 0);  // run 2: 2x slower there
  CHECK(jit::kernel_config(kLlama4, "").group == 0);
  CHECK(jit::kernel_config(kQwenNext, "dc_group=2").group == 2);
  CHECK(jit::kernel_config(kDeepSeek, "dc_group=0").group == 0);
  // gu_group is gate_up's knob; the classic down has no grouped kernel.
  CHECK(jit::kernel_config(kDeepSeek, "gu_group=0").group == 16);
  CHECK(jit::kernel_config(kDeepSeek, "dc_stream=0").group == 0);
  CHECK(jit::kernel_config(kDeepSeek, "dc_stream=0,dc_group=8").group == 0);
  CHECK_THROWS_AS(jit::kernel_config(kDeepSeek, "dc_group=1"), ArgumentError);
  CHECK_THROWS_AS(jit::kernel_config(kDeepSeek, "dc_group=17"), ArgumentError);
  // dc_rings picks other counts up to the most that fit; more is an error naming the knob.
  CHECK(jit::group_rings(kDeepSeek, jit::kernel_config(kDeepSeek, "")) == 6);
  CHECK(jit::group_rings(kDeepSeek, jit::kernel_config(kDeepSeek, "dc_rings=7")) == 7);
  CHECK(jit::group_rings(kDeepSeek, jit::kernel_config(kDeepSeek, "dc_rings=8")) == 8);
  CHECK(jit::generate_source(kDeepSeek, "sm_90", "dc_rings=7").find("8, 7, 2, false>(p)") != std::string::npos);
  CHECK_THROWS_WITH(jit::generate_source(kDeepSeek, "sm_90", "dc_rings=9"), Catch::Contains("dc_rings=9"));
  CHECK_THROWS_AS(jit::kernel_config(kDeepSeek, "dc_rings=15"), ArgumentError);
}

TEST_CASE("the grouped down's rings fit shared memory at the sizing and the H200's CTA counts", "[codegen]") {
  // The default keeps the SM in the 196 KB split (session 24): DeepSeek-V3 6 rings x 2 warps,
  // where 8 fit at all; GLM-4.5's 9 fit either way.
  CHECK(down_group_rings(7168, 2048, 2048, 8) == 6);
  CHECK(down_group_rings_max(7168, 2048, 2048, 8) == 8);
  CHECK(down_group_rings(5120, 1536, 1536, 8) == 9);
  CHECK(down_group_rings_max(5120, 1536, 1536, 8) == 9);
  CHECK(down_group_rings(2048, 512, 512, 10) == kDownGroupMaxRings);
  CHECK(down_group_rings(2048, 1408, 5632, 4) == 0);  // K lengths not in 256-element steps
  for (const Key& key : {kDeepSeek, kGlm, kQwenNext}) {
    INFO(key.str());
    const int rings = down_group_rings(key.h, key.i, key.si, key.k);
    for (const int ctas : {kDownGroupSizingCtas, 114, 132})
      CHECK(down_group_smem_bytes(key.h, key.i, key.si, key.k, rings, ctas) <= kSmemSplit196Bytes);
    // Fewer CTAs than the sizing count hold more rows each: the launcher then leaves it unused.
    CHECK(down_group_cta_rows(key.h, 132) <= down_group_cta_rows(key.h, kDownGroupSizingCtas));
  }
  CHECK(down_group_cta_rows(7168, 132) == 56);
}

TEST_CASE("the grouped down is a second kernel of the streaming down's module", "[codegen]") {
  CHECK(jit::group_kernel_name(kDeepSeek) == "moegemv_down_combine_7168_2048_2048_8_group");
  const std::string ds = jit::generate_source(kDeepSeek, "sm_90", "");
  CHECK(ds.find("down_stream<7168, 2048, 2048, 8, 2, 2>(p)") != std::string::npos);
  CHECK(ds.find("moegemv_down_combine_7168_2048_2048_8_group(") != std::string::npos);
  CHECK(ds.find("__launch_bounds__(416, 1)") != std::string::npos);  // 6 rings x 2 warps + producer
  CHECK(ds.find("down_group<7168, 2048, 2048, 8, 6, 2, false>(p)") != std::string::npos);  // ring order
  CHECK(jit::generate_source(kDeepSeek, "sm_90", "dc_lanes=1").find("8, 6, 2, true>(p)") != std::string::npos);
  CHECK(jit::generate_source(kGlm, "sm_90", "").find("down_group<5120, 1536, 1536, 8, 9, 2, true>(p)") !=
        std::string::npos);  // one producer lane per ring
  CHECK(ds.find("MOEGEMV_GU_GROUP") == std::string::npos);  // gate_up's macro stays in gate_up
  CHECK(jit::generate_source(kDeepSeek, "sm_90", "dc_group=0").find("_group") == std::string::npos);
  CHECK(jit::generate_source(kQwenNext, "sm_90", "").find("_group") == std::string::npos);
  CHECK(jit::generate_source(kQwenNext, "sm_90", "dc_group=2").find("down_group<2048, 512, 512, 10, 14, 1, true>(p)") !=
        std::string::npos);
}

TEST_CASE("the grouped down compiles without spills", "[nvrtc]") {
  for (const Key& key : {kDeepSeek, kGlm, kQwenNext}) {
    INFO(key.str());
    auto out = jit::compile(jit::generate_source(key, "sm_90", "dc_group=2"), key.str(), "sm_90",
                            jit::compile_options("sm_90"));
    const std::string image(out.cubin.begin(), out.cubin.end());
    CHECK(image.find(jit::group_kernel_name(key)) != std::string::npos);
    CHECK(out.log.find(jit::group_kernel_name(key)) != std::string::npos);
    CHECK(out.log.find("bytes spill stores") != std::string::npos);
    CHECK(out.log.find(" 0 bytes spill stores") != std::string::npos);
    const auto at = out.log.find(jit::group_kernel_name(key));
    const auto spill = out.log.find("bytes spill stores", at);
    REQUIRE(spill != std::string::npos);
    CHECK(out.log.substr(out.log.rfind('\n', spill) + 1, spill - out.log.rfind('\n', spill) - 1)
              .find(" 0 ") != std::string::npos);
  }
}
