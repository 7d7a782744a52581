// gate_up's two-tile kernel (session 13; templates/tile_split.cuh, gate_up.cuh): a second kernel
// of the module where the split tile and grouping are the defaults, launched from M = group on,
// whose routed CTAs take two 8-feature tiles; MOEGEMV_TUNE gu_tiles=1 removes it; it compiles
// without spills.
#include <catch2/catch.hpp>

#include <string>

#include "jit/codegen.hpp"
#include "jit/nvrtc.hpp"
#include "templates/params.h"

using namespace moegemv;

namespace {
const Key kDeepSeek{Kind::kGateUp, 7168, 2048, 2048, 8};
const Key kGlm{Kind::kGateUp, 5120, 1536, 1536, 8};
const Key kLlama4{Kind::kGateUp, 5120, 8192, 8192, 1};  // the classic tile by default
}  // namespace

TEST_CASE("gate_up has a two-tile kernel for M >= group where the split tile groups", "[codegen]") {
  for (const Key& key : {kDeepSeek, kGlm}) {
    INFO(key.str());
    const KernelConfig c = jit::kernel_config(key, "");
    CHECK(c.tiles == 2);
    CHECK(jit::has_many_token_kernel(c));
    const std::string source = jit::generate_source(key, "sm_90", "");
    CHECK(source.find(jit::many_token_kernel_name(key) + "(") != std::string::npos);
    CHECK(source.find(", true, 0, 2>(p)") != std::string::npos);  // TILES = 2 after SPLIT, SHX
    CHECK(source.find(", true, 0>(p)") != std::string::npos);     // the general kernel: one tile
  }
  CHECK(jit::many_token_kernel_name(kDeepSeek) == "moegemv_gate_up_7168_2048_2048_8_tiles2");
  // Off: asked for, where the shape has no split tile or no grouping, or where a warp would have
  // fewer steps per tile than the pipeline holds.
  CHECK_FALSE(jit::has_many_token_kernel(jit::kernel_config(kDeepSeek, "gu_tiles=1")));
  CHECK(jit::generate_source(kDeepSeek, "sm_90", "gu_tiles=1").find("_tiles2") == std::string::npos);
  CHECK_FALSE(jit::has_many_token_kernel(jit::kernel_config(kDeepSeek, "gu_group=0")));
  CHECK_FALSE(jit::has_many_token_kernel(jit::kernel_config(kDeepSeek, "gu_pipe=8")));
  CHECK_FALSE(jit::has_many_token_kernel(jit::kernel_config(kLlama4, "")));
  CHECK_FALSE(jit::has_many_token_kernel(jit::kernel_config(kLlama4, "gu_tiles=2")));
  CHECK_FALSE(jit::has_many_token_kernel(jit::kernel_config(Key{Kind::kGateUp, 2048, 512, 512, 10}, "")));
  CHECK_FALSE(jit::has_many_token_kernel(jit::kernel_config(Key{Kind::kDownCombine, 7168, 2048, 2048, 8}, "")));
  CHECK_THROWS_WITH(jit::kernel_config(kDeepSeek, "gu_tiles=3"), Catch::Contains("gu_tiles=3"));
  // gu_tmin (session 25): the two-tile kernel from M = N instead of the grouping's M; the source
  // (and so the cubin) stays the same: the launcher reads it.
  CHECK(jit::many_token_min_m(jit::kernel_config(kDeepSeek, "")) == kGateUpGroupDefault);
  CHECK(jit::many_token_min_m(jit::kernel_config(kDeepSeek, "gu_tmin=1")) == 1);
  CHECK(jit::generate_source(kDeepSeek, "sm_90", "gu_tmin=1") == jit::generate_source(kDeepSeek, "sm_90", ""));
  CHECK(gate_up_two_tiles(1, 8, jit::many_token_min_m(jit::kernel_config(kDeepSeek, "gu_tmin=1"))));
  CHECK_THROWS_WITH(jit::kernel_config(kDeepSeek, "gu_tmin=0"), Catch::Contains("gu_tmin=0"));
  CHECK_THROWS_WITH(jit::kernel_config(Key{Kind::kDownCombine, 7168, 2048, 2048, 8}, "dc_tmin=1"),
                    Catch::Contains("dc_tmin=1"));
  // The launcher takes it from M = group on while the grid is grouped (M * K <= 256 pairs).
  CHECK_FALSE(gate_up_two_tiles(4, 8, 8));
  CHECK(gate_up_two_tiles(8, 8, 8));
  CHECK(gate_up_two_tiles(16, 16, 8));
  CHECK_FALSE(gate_up_two_tiles(16, 17, 8));
  CHECK_FALSE(gate_up_two_tiles(16, 8, 0));
  // The routed grid: M x K pairs x I / 8 tiles, two per CTA.
  CHECK(gate_up_routed_ctas(1, 8, 2048) == 2048);
  CHECK(gate_up_routed_ctas(16, 8, 2048, 2) == 16 * 1024);
  CHECK(gate_up_routed_ctas(3, 8, 2048, 0) == 3 * 2048);
}

TEST_CASE("gate_up's two-tile kernel compiles without spills", "[nvrtc]") {
  for (const Key& key : {kDeepSeek, kGlm}) {
    INFO(key.str());
    auto out = jit::compile(jit::generate_source(key, "sm_90", ""), key.str(), "sm_90",
                            jit::compile_options("sm_90"));
    const std::string image(out.cubin.begin(), out.cubin.end());
    CHECK(image.find(jit::many_token_kernel_name(key)) != std::string::npos);
    const auto at = out.log.find(jit::many_token_kernel_name(key));
    REQUIRE(at != std::string::npos);
    const auto spill = out.log.find("bytes spill stores", at);
    REQUIRE(spill != std::string::npos);
    CHECK(out.log.substr(out.log.rfind('\n', spill) + 1, spill - out.log.rfind('\n', spill) - 1)
              .find(" 0 ") != std::string::npos);
  }
}
