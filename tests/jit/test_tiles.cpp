// Two 8-feature tiles per routed gate_up CTA (MOEGEMV_TUNE gu_tiles=2, session 13; templates/
// tile_split.cuh): only with the split tile, the define in the source, the grid halves, and the
// kernel compiles without spills.
#include <catch2/catch.hpp>

#include <string>

#include "jit/codegen.hpp"
#include "jit/nvrtc.hpp"
#include "moegemv/errors.hpp"
#include "templates/params.h"

using namespace moegemv;

namespace {
const Key kDeepSeek{Kind::kGateUp, 7168, 2048, 2048, 8};
const Key kLlama4{Kind::kGateUp, 5120, 8192, 8192, 1};  // the classic tile by default
}  // namespace

TEST_CASE("gu_tiles=2 takes two tiles per routed CTA with the split tile only", "[codegen]") {
  CHECK(jit::kernel_config(kDeepSeek, "").tiles == 0);
  CHECK(jit::generate_source(kDeepSeek, "sm_90", "").find("MOEGEMV_GU_TILES") == std::string::npos);
  CHECK(jit::kernel_config(kDeepSeek, "gu_tiles=2").tiles == 2);
  CHECK(jit::generate_source(kDeepSeek, "sm_90", "gu_tiles=2").find("#define MOEGEMV_GU_TILES 2") !=
        std::string::npos);
  CHECK(jit::generate_source(kDeepSeek, "sm_90", "gu_tiles=1").find("MOEGEMV_GU_TILES") == std::string::npos);
  CHECK_THROWS_WITH(jit::kernel_config(kLlama4, "gu_tiles=2"), Catch::Contains("gu_tiles=2"));
  CHECK_THROWS_WITH(jit::kernel_config(kDeepSeek, "gu_tiles=2,gu_split=0"), Catch::Contains("gu_tiles=2"));
  CHECK_THROWS_WITH(jit::kernel_config(kDeepSeek, "gu_tiles=2,gu_pipe=8"), Catch::Contains("gu_pipe"));
  CHECK_THROWS_WITH(jit::kernel_config(kDeepSeek, "gu_tiles=3"), Catch::Contains("gu_tiles=3"));
  CHECK(jit::kernel_config(Key{Kind::kDownCombine, 7168, 2048, 2048, 8}, "gu_tiles=2").tiles == 0);
  // The routed grid: M x K pairs x I / 8 tiles, two per CTA.
  CHECK(gate_up_routed_ctas(1, 8, 2048) == 2048);
  CHECK(gate_up_routed_ctas(1, 8, 2048, 2) == 1024);
  CHECK(gate_up_routed_ctas(3, 8, 2048, 0) == 3 * 2048);
}

TEST_CASE("gu_tiles=2 compiles without spills", "[nvrtc]") {
  for (const Key& key : {kDeepSeek, Key{Kind::kGateUp, 5120, 1536, 1536, 8}}) {
    INFO(key.str());
    auto out = jit::compile(jit::generate_source(key, "sm_90", "gu_tiles=2"), key.str(), "sm_90",
                            jit::compile_options("sm_90"));
    CHECK(out.log.find("bytes spill stores") != std::string::npos);
    CHECK(out.log.find(" 0 bytes spill stores") != std::string::npos);
  }
}
