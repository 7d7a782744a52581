#include <catch2/catch.hpp>

#include "jit/codegen.hpp"
#include "jit/render.hpp"
#include "jit/templates.hpp"
#include "moegemv/errors.hpp"
#include "shapes.hpp"

using namespace moegemv;

TEST_CASE("renderer fails on unknown or unused names", "[codegen]") {
  CHECK(jit::render("a {{x}} b", {{"x", "1"}}) == "a 1 b");
  CHECK_THROWS_AS(jit::render("a {{y}} b", {{"x", "1"}}), ArgumentError);
  CHECK_THROWS_AS(jit::render("a b", {{"x", "1"}}), ArgumentError);
  CHECK_THROWS_AS(jit::render("a {{x b", {{"x", "1"}}), ArgumentError);
}

TEST_CASE("generated source is deterministic and names the kernel", "[codegen]") {
  for (const auto& key : issue_keys()) {
    auto a = jit::generate_source(key, "sm_90");
    auto b = jit::generate_source(key, "sm_90");
    CHECK(a == b);
    CHECK(a.find(jit::kernel_name(key)) != std::string::npos);
    CHECK(a.find(jit::templates_hash()) != std::string::npos);
    CHECK(a != jit::generate_source(key, "sm_100a"));
  }
  CHECK(jit::kernel_name(Key{Kind::kDownCombine, 7168, 2048, 2048, 8}) ==
        "moegemv_down_combine_7168_2048_2048_8");
}

TEST_CASE("templates are embedded and hashed", "[codegen]") {
  const auto& files = jit::embedded_templates();
  REQUIRE(files.size() >= 5);
  CHECK(jit::templates_hash().size() == 16);
}

TEST_CASE("codegen rejects bad arch and oversize keys", "[codegen]") {
  CHECK_THROWS_AS(jit::generate_source(Key{Kind::kGateUp, 7168, 2048, 2048, 8}, "sm_80"),
                  ArgumentError);
  // gate_up stages x (H * 2 bytes) in shared memory: H = 119808 does not fit.
  CHECK_THROWS_WITH(jit::generate_source(Key{Kind::kGateUp, 119808, 64, 0, 1}, "sm_90"),
                    Catch::Contains("shared memory"));
}

TEST_CASE("MOEGEMV_TUNE overrides the kernel config and names bad entries", "[codegen]") {
  const Key gu{Kind::kGateUp, 7168, 2048, 2048, 8};
  const Key dc{Kind::kDownCombine, 7168, 2048, 2048, 8};
  const KernelConfig base = jit::kernel_config(gu, "");
  auto c = jit::kernel_config(gu, "gu_warps=8,gu_pipe=3,dc_warps=2");
  CHECK(c.warps == 8);
  CHECK(c.pipe == 3);
  CHECK(c.min_blocks == 2);  // 16 resident warps (the split tile) in CTAs of 8
  CHECK(base.min_blocks == 4);
  CHECK(jit::kernel_config(gu, "gu_warps=8,gu_minb=3").min_blocks == 3);
  // H <= 2048: CTAs of 2 warps, 10 per SM (Qwen3-Next, PERF.md session 4).
  CHECK(jit::kernel_config(Key{Kind::kGateUp, 2048, 512, 512, 10}, "").warps == 2);
  CHECK(jit::kernel_config(Key{Kind::kGateUp, 2048, 512, 512, 10}, "").min_blocks == 10);
  CHECK(jit::kernel_config(dc, "gu_warps=8,dc_stream=0,dc_warps=2,dc_l2=1").warps == 2);
  CHECK(jit::kernel_config(dc, "dc_stream=0,dc_l2=1").l2_prefetch == 1);
  CHECK_THROWS_WITH(jit::kernel_config(gu, "gu_warps=0"), Catch::Contains("MOEGEMV_TUNE"));
  CHECK_THROWS_WITH(jit::kernel_config(gu, "xx_warps=2"), Catch::Contains("MOEGEMV_TUNE"));
  CHECK_THROWS_WITH(jit::kernel_config(gu, "gu_speed=2"), Catch::Contains("gu_speed=2"));
  CHECK_THROWS_WITH(jit::kernel_config(gu, "gu_pipe=abc"), Catch::Contains("gu_pipe=abc"));
  // Ring and persistent configs: the ring reads B from shared memory; persistent is down only.
  CHECK(jit::kernel_config(gu, "gu_ring=1").ring == 1);
  CHECK(jit::kernel_config(dc, "dc_direct=0,dc_ring=2").ring == 2);
  CHECK(jit::kernel_config(dc, "dc_stream=0").split == 1);
  CHECK(jit::kernel_config(dc, "dc_stream=0,dc_split=0").split == 0);
  CHECK_THROWS_WITH(jit::kernel_config(dc, "dc_ring=1"), Catch::Contains("direct=0"));
  CHECK_THROWS_WITH(jit::kernel_config(dc, "dc_stream=1,dc_direct=0,dc_ring=1"), Catch::Contains("without ring"));
  CHECK_THROWS_WITH(jit::kernel_config(gu, "gu_ring=2"), Catch::Contains("gu_ring=2"));
  CHECK_THROWS_WITH(jit::kernel_config(gu, "gu_chunks=2"), Catch::Contains("gu_chunks=2"));
  // Per-warp x staging is gate_up's default (session 5); it reaches the template as a macro.
  CHECK(base.stage == 1);
  CHECK(jit::kernel_config(gu, "gu_stage=0").stage == 0);
  CHECK_THROWS_WITH(jit::kernel_config(dc, "dc_stage=1"), Catch::Contains("dc_stage=1"));
  CHECK_THROWS_WITH(jit::kernel_config(gu, "gu_stage=2"), Catch::Contains("gu_stage=2"));
  CHECK(jit::generate_source(gu, "sm_90", "").find("#define MOEGEMV_GU_STAGE 1") != std::string::npos);
  CHECK(jit::generate_source(gu, "sm_90", "gu_stage=0").find("MOEGEMV_GU_STAGE") == std::string::npos);
  CHECK(base.order == 1);  // the shared expert's CTAs first (session 5)
  CHECK(jit::generate_source(gu, "sm_90", "").find("#define MOEGEMV_GU_ORDER 1") != std::string::npos);
  CHECK(jit::generate_source(gu, "sm_90", "gu_order=0").find("MOEGEMV_GU_ORDER") == std::string::npos);
  CHECK_THROWS_WITH(jit::kernel_config(dc, "dc_order=1"), Catch::Contains("dc_order=1"));
  // Grouped routed pairs (session 11): from M = 8 on with the split tile, off with the classic
  // one unless asked for; gu_group=N groups from M = N on.
  CHECK(base.split == 1);
  CHECK(base.group == 8);
  CHECK(jit::generate_source(gu, "sm_90", "").find("#define MOEGEMV_GU_GROUP 8") != std::string::npos);
  CHECK(jit::kernel_config(gu, "gu_split=0").group == 0);
  CHECK(jit::kernel_config(gu, "gu_split=0,gu_group=4").group == 4);
  CHECK(jit::generate_source(gu, "sm_90", "gu_group=0").find("MOEGEMV_GU_GROUP") == std::string::npos);
  CHECK(jit::generate_source(gu, "sm_90", "gu_group=4").find("#define MOEGEMV_GU_GROUP 4") != std::string::npos);
  const Key small{Kind::kGateUp, 2048, 512, 512, 10};  // classic tile: no grouping
  CHECK(jit::kernel_config(small, "").group == 0);
  CHECK_THROWS_WITH(jit::kernel_config(gu, "gu_group=1"), Catch::Contains("gu_group=1"));
  CHECK_THROWS_WITH(jit::kernel_config(dc, "dc_group=1"), Catch::Contains("dc_group=1"));  // test_group.cpp
  // The diagnostic CTA timeline (templates/timeline.cuh) only when asked for, also where the
  // streaming kernel falls back to the classic one.
  CHECK(base.timeline == 0);
  CHECK(jit::generate_source(gu, "sm_90", "").find("MOEGEMV_TIMELINE") == std::string::npos);
  CHECK(jit::generate_source(gu, "sm_90", "").find("timeline::Scope") == std::string::npos);
  for (const char* tune : {"gu_timeline=1", "dc_timeline=1", "dc_timeline=1,dc_stream=0"}) {
    const Key& key = tune[0] == 'g' ? gu : dc;
    const std::string source = jit::generate_source(key, "sm_90", tune);
    CHECK(source.find("#define MOEGEMV_TIMELINE 1") != std::string::npos);
    CHECK(source.find("moegemv::timeline::Scope timeline_scope;") != std::string::npos);
  }
  CHECK(jit::kernel_config(dc, "dc_timeline=1,dc_stream=1,dc_pipe=8").timeline == 1);
  CHECK(jit::kernel_config(dc, "dc_timeline=1,dc_stream=1,dc_pipe=8").stream == 0);
  CHECK_THROWS_WITH(jit::kernel_config(gu, "gu_timeline=2"), Catch::Contains("gu_timeline=2"));
  // The diagnostic knock bits (wrong results) never appear unless asked for.
  CHECK(base.knock == 0);
  CHECK(jit::kernel_config(dc, "").knock == 0);
  CHECK(jit::generate_source(gu, "sm_90", "").find("MOEGEMV_KNOCK") == std::string::npos);
  CHECK(jit::generate_source(dc, "sm_90", "").find("MOEGEMV_KNOCK") == std::string::npos);
  CHECK(jit::generate_source(gu, "sm_90", "gu_knock=3").find("#define MOEGEMV_KNOCK 3") != std::string::npos);
  CHECK(jit::generate_source(dc, "sm_90", "dc_knock=1").find("#define MOEGEMV_KNOCK 1") != std::string::npos);
  CHECK_THROWS_WITH(jit::kernel_config(gu, "gu_knock=1024"), Catch::Contains("gu_knock=1024"));
  CHECK(jit::generate_source(dc, "sm_90", "dc_knock=512").find("#define MOEGEMV_KNOCK 512") != std::string::npos);
  CHECK(jit::generate_source(dc, "sm_90", "dc_knock=96").find("#define MOEGEMV_KNOCK 96") != std::string::npos);
  // The decode form (session 14): 3 by default since session 18, 0 (no macro) in a down module
  // whose grouped kernel runs from M <= 8 (GLM-4.5) unless asked for; kept where the shape falls
  // back to the classic kernel; out of range names itself.
  CHECK(base.decode == 3);
  CHECK(jit::kernel_config(dc, "").decode == 3);
  CHECK(jit::generate_source(dc, "sm_90", "").find("#define MOEGEMV_DECODE 3") != std::string::npos);
  CHECK(jit::generate_source(dc, "sm_90", "dc_decode=0").find("MOEGEMV_DECODE") == std::string::npos);
  const Key glm_dc{Kind::kDownCombine, 5120, 1536, 1536, 8};
  CHECK(jit::kernel_config(glm_dc, "").group == 8);
  CHECK(jit::kernel_config(glm_dc, "").decode == 0);
  CHECK(jit::kernel_config(glm_dc, "dc_decode=3").decode == 3);
  CHECK(jit::kernel_config(glm_dc, "dc_group=0").decode == 3);
  CHECK(jit::kernel_config(dc, "dc_group=8").decode == 0);
  CHECK(jit::generate_source(gu, "sm_90", "gu_decode=1").find("#define MOEGEMV_DECODE 1") != std::string::npos);
  CHECK(jit::generate_source(dc, "sm_90", "dc_decode=1").find("#define MOEGEMV_DECODE 1") != std::string::npos);
  CHECK(jit::generate_source(dc, "sm_90", "gu_decode=1").find("#define MOEGEMV_DECODE 3") != std::string::npos);
  CHECK(jit::kernel_config(dc, "dc_decode=1,dc_stream=1,dc_pipe=8").stream == 0);
  CHECK(jit::kernel_config(dc, "dc_decode=1,dc_stream=1,dc_pipe=8").decode == 1);
  CHECK(jit::kernel_config(dc, "dc_decode=3").decode == 3);
  CHECK_THROWS_WITH(jit::kernel_config(dc, "dc_decode=4"), Catch::Contains("dc_decode=4"));
  CHECK(base.bindex == 0);
  CHECK(jit::generate_source(gu, "sm_90", "").find("MOEGEMV_B_INDEX") == std::string::npos);
  CHECK(jit::generate_source(gu, "sm_90", "gu_bindex=1").find("#define MOEGEMV_B_INDEX 1") != std::string::npos);
  CHECK_THROWS_WITH(jit::kernel_config(gu, "gu_bindex=2"), Catch::Contains("gu_bindex=2"));
  CHECK(jit::generate_source(dc, "sm_90", "dc_gcount=1").find("#define MOEGEMV_DC_GCOUNT 1") != std::string::npos);
  CHECK_THROWS_WITH(jit::kernel_config(gu, "gu_gcount=1"), Catch::Contains("gu_gcount=1"));
  // shx is each kernel's argument after SPLIT (the split tile here; the two-tile kernel's follows).
  CHECK(jit::generate_source(gu, "sm_90", "").find("0, true, 0>(p);") != std::string::npos);
  CHECK(jit::generate_source(gu, "sm_90", "gu_shx=1").find("0, true, 1>(p);") != std::string::npos);
  CHECK(jit::generate_source(gu, "sm_90", "gu_shx=2").find("0, true, 2>(p);") != std::string::npos);
  CHECK(jit::generate_source(gu, "sm_90", "gu_shx=2").find("0, true, 2, 2>(p);") !=
        std::string::npos);
  CHECK_THROWS_WITH(jit::kernel_config(gu, "gu_shx=3"), Catch::Contains("gu_shx=3"));
  CHECK_THROWS_WITH(jit::kernel_config(dc, "dc_shx=1"), Catch::Contains("dc_shx=1"));
  // gate_up split rows: x staged, H % 256 == 0 (else the classic tiles); the default on the wide
  // many-expert shapes (4 CTAs/SM), not on Qwen3-Next or Llama-4.
  CHECK(jit::kernel_config(gu, "").split == 1);
  CHECK(jit::kernel_config(gu, "").min_blocks == 4);
  CHECK(jit::kernel_config(Key{Kind::kGateUp, 5120, 1536, 1536, 8}, "").split == 1);
  CHECK(jit::kernel_config(Key{Kind::kGateUp, 2048, 512, 512, 10}, "").split == 0);
  CHECK(jit::kernel_config(Key{Kind::kGateUp, 5120, 8192, 8192, 1}, "").split == 0);
  CHECK(jit::kernel_config(Key{Kind::kGateUp, 2048, 512, 512, 10}, "gu_split=1").split == 1);
  CHECK(jit::kernel_config(gu, "gu_split=0").split == 0);
  CHECK(jit::kernel_config(gu, "gu_split=0").min_blocks == 5);  // CTAs/SM follow the tile
  CHECK(jit::kernel_config(gu, "gu_split=0,gu_minb=4").min_blocks == 4);
  CHECK(jit::kernel_config(Key{Kind::kGateUp, 2048, 512, 512, 10}, "gu_split=1").min_blocks == 8);
  // The default split gives way to an asked-for ring or direct x (and its CTAs/SM with it).
  CHECK(jit::kernel_config(gu, "gu_direct=1").split == 0);
  CHECK(jit::kernel_config(gu, "gu_direct=1").min_blocks == 5);
  CHECK(jit::kernel_config(gu, "gu_ring=1").split == 0);
  CHECK(jit::kernel_config(Key{Kind::kGateUp, 3904, 64, 0, 3}, "gu_split=1").split == 0);
  CHECK_THROWS_WITH(jit::kernel_config(gu, "gu_split=1,gu_direct=1"), Catch::Contains("gu_split=1"));
  CHECK_THROWS_WITH(jit::kernel_config(gu, "gu_split=1,gu_ring=1"), Catch::Contains("gu_split=1"));
  CHECK_THROWS_WITH(jit::kernel_config(dc, "dc_direct=0,dc_ring=2,dc_l2=1"), Catch::Contains("dc_l2"));
}

TEST_CASE("the streaming config fills its shape-derived fields and fits shared memory", "[codegen]") {
  for (const Key& key : issue_keys()) {
    INFO(key.str());
    const KernelConfig c = jit::kernel_config(key, "gu_stream=1,dc_stream=1");
    if (c.stream == 0) {
      // Falls back to the classic kernel only where the down pieces cannot be whole steps.
      CHECK(key.kind == Kind::kDownCombine);
      CHECK((key.i % 256 != 0 || key.si % 256 != 0));
      continue;
    }
    CHECK(c.pipe >= 2);
    CHECK(jit::smem_bytes(key, c) <= kMaxSmemBytes);
    if (key.kind == Kind::kGateUp) {
      CHECK(c.warps == 8);
      CHECK(c.slots >= 1);
      CHECK(c.slots <= kMaxCols);
    } else {
      CHECK(c.warps == down_stream_warps(key.si, key.k, c.chunks));
      CHECK(c.warps >= 2);
    }
  }
  const Key dc{Kind::kDownCombine, 7168, 2048, 2048, 8};
  // DeepSeek-V3's down: two warps per segment (18; session 5), two slots of 8 rows x 1024 bytes
  // per segment; the block adds the producer and the combiner warp.
  CHECK(jit::kernel_config(dc, "dc_stream=1").warps == 18);
  CHECK(jit::kernel_config(dc, "dc_stream=1").pipe == 2);
  CHECK(jit::block_warps(dc) == 20);
  CHECK(jit::kernel_config(dc, "dc_stream=1,dc_chunks=1").warps == 9);
  // Qwen3-Next (I = 512, 2 half-steps per segment): one warp per segment.
  CHECK(jit::kernel_config(Key{Kind::kDownCombine, 2048, 512, 512, 10}, "dc_stream=1").warps == 11);
  // Llama-4 (K = 1): 2 segments, 4 warps each (session 18; 8 since session 5 before).
  CHECK(jit::kernel_config(Key{Kind::kDownCombine, 5120, 8192, 8192, 1}, "dc_stream=1").warps == 8);
  // A CTA holds at most 32 warps (consumers, producer, combiner): more warps per segment than that
  // allows, or K + 1 segments that alone exceed it, fall back to the classic kernel.
  CHECK(jit::kernel_config(dc, "dc_stream=1,dc_chunks=8").stream == 0);
  CHECK(jit::kernel_config(dc, "dc_stream=1,dc_chunks=3").stream == 1);  // 27 + 2 warps
  CHECK(jit::kernel_config(Key{Kind::kDownCombine, 2048, 256, 256, 29}, "dc_stream=1").stream == 1);  // 30 + 2
  CHECK(jit::kernel_config(Key{Kind::kDownCombine, 2048, 256, 256, 30}, "dc_stream=1").stream == 0);
  CHECK(jit::kernel_config(Key{Kind::kDownCombine, 2048, 256, 0, 30}, "dc_stream=1").stream == 1);
  CHECK(jit::kernel_config(Key{Kind::kGateUp, 7168, 2048, 2048, 8}, "gu_stream=1,gu_warps=32").stream == 0);
  for (const Key& key : issue_keys()) {
    INFO(key.str());
    CHECK(jit::block_warps(key) <= kMaxBlockWarps);
  }
  // Block scales two units ahead (cp.async ring, session 6) only at I <= 512 without two CTAs per
  // SM (session 8); since v47 (session 19) GLM-4.5 and Llama-4 keep them in registers, as
  // DeepSeek-V3 does; the ring's 3 buffers cost shared memory: since v55 (the deepest ring within
  // the 164 KB split, jit/codegen_stream.cpp) one slot on the K = 16 shape, none on a preset.
  const Key glm{Kind::kDownCombine, 5120, 1536, 1536, 8}, llama{Kind::kDownCombine, 5120, 8192, 8192, 1};
  const Key qwen_dc{Kind::kDownCombine, 2048, 512, 512, 10};
  const Key wide_qwen_dc{Kind::kDownCombine, 2048, 512, 512, 16};  // too many warps for two per SM
  CHECK(jit::kernel_config(dc, "").sahead == 1);
  CHECK(jit::kernel_config(wide_qwen_dc, "").sahead == 2);
  CHECK(jit::kernel_config(wide_qwen_dc, "").pipe == 3);
  CHECK(jit::kernel_config(wide_qwen_dc, "dc_sahead=1").pipe == 4);
  CHECK(jit::smem_bytes(wide_qwen_dc, jit::kernel_config(wide_qwen_dc, "")) <= kSmemSplit164Bytes);
  // Two streaming down CTAs per SM (session 8) where I <= 512 and 2 x (segments + 2) warps fit
  // at 72 registers: Qwen3-Next (11 segments); a 2-slot ring, the scale feed in registers, the
  // cap in the source; not at K = 16, not on the wide shapes, not on the classic fallback.
  const KernelConfig two = jit::kernel_config(qwen_dc, "");
  CHECK(two.maxreg == kDownTwoPerSmRegs);
  CHECK(two.pipe == 2);
  CHECK(two.sahead == 1);
  CHECK(2 * (two.warps + stream_extra_warps(false)) * 32 * two.maxreg <= 64 * 1024);
  CHECK(2 * jit::smem_bytes(qwen_dc, two) <= kMaxSmemBytes);
  CHECK(jit::generate_source(qwen_dc, "sm_90", "").find("__maxnreg__(72)") != std::string::npos);
  CHECK(jit::kernel_config(qwen_dc, "dc_pipe=3").pipe == 3);
  CHECK(jit::kernel_config(qwen_dc, "dc_maxreg=0").pipe == 4);
  CHECK(jit::kernel_config(wide_qwen_dc, "").maxreg == 0);
  CHECK(jit::kernel_config(dc, "").maxreg == 0);
  const Key four_segments{Kind::kDownCombine, 2048, 512, 0, 4};
  CHECK(jit::kernel_config(four_segments, "").maxreg == 0);
  const Key classic_dc{Kind::kDownCombine, 2048, 384, 384, 10};  // I % 256 != 0: the classic kernel
  CHECK(jit::kernel_config(classic_dc, "").stream == 0);
  CHECK(jit::kernel_config(classic_dc, "").maxreg == 0);
  CHECK(jit::generate_source(classic_dc, "sm_90", "").find("__maxnreg__") == std::string::npos);
  CHECK(jit::kernel_config(glm, "").sahead == 1);
  CHECK(jit::kernel_config(llama, "").sahead == 1);
  CHECK(jit::kernel_config(glm, "").pipe == jit::kernel_config(glm, "dc_sahead=2").pipe);
  CHECK(jit::kernel_config(llama, "").pipe == jit::kernel_config(llama, "dc_sahead=2").pipe);
  CHECK(jit::kernel_config(dc, "dc_sahead=2").pipe == jit::kernel_config(dc, "").pipe);
  CHECK(jit::smem_bytes(dc, jit::kernel_config(dc, "dc_sahead=2")) > jit::smem_bytes(dc));
  CHECK(jit::generate_source(glm, "sm_90", "").find("MOEGEMV_DC_SAHEAD") == std::string::npos);
  CHECK(jit::generate_source(glm, "sm_90", "dc_sahead=2").find("#define MOEGEMV_DC_SAHEAD 2") !=
        std::string::npos);
  CHECK(jit::generate_source(dc, "sm_90", "").find("MOEGEMV_DC_SAHEAD") == std::string::npos);
  CHECK(jit::generate_source(dc, "sm_90", "dc_sahead=2").find("#define MOEGEMV_DC_SAHEAD 2") !=
        std::string::npos);
  CHECK(jit::generate_source(glm, "sm_90", "dc_stream=0").find("MOEGEMV_DC_SAHEAD") == std::string::npos);
  CHECK_THROWS_WITH(jit::kernel_config(dc, "dc_sahead=3"), Catch::Contains("dc_sahead=3"));
  CHECK_THROWS_WITH(jit::kernel_config(Key{Kind::kGateUp, 7168, 2048, 2048, 8}, "gu_sahead=2"),
                    Catch::Contains("gu_sahead=2"));
  // Session 8's knobs: an explicit register cap replaces __launch_bounds__ (CUDA takes one of the
  // two); the streaming down's launch_dependents point; the timeline's mark points (down only).
  const Key gu{Kind::kGateUp, 7168, 2048, 2048, 8};
  CHECK(jit::generate_source(gu, "sm_90", "").find("__launch_bounds__(") != std::string::npos);
  CHECK(jit::generate_source(dc, "sm_90", "").find("__launch_bounds__(") != std::string::npos);
  for (const Key& key : {gu, dc, Key{Kind::kDownCombine, 2048, 384, 0, 8}}) {
    INFO(key.str());
    const std::string capped = jit::generate_source(key, "sm_90", "gu_maxreg=88,dc_maxreg=80");
    CHECK(capped.find(key.kind == Kind::kGateUp ? "__maxnreg__(88)" : "__maxnreg__(80)") !=
          std::string::npos);
    // (the grouped down, a second kernel of DeepSeek-V3's down module, keeps its own bounds)
    CHECK(capped.substr(0, capped.find("down_group.cuh")).find("__launch_bounds__(") == std::string::npos);
  }
  CHECK_THROWS_WITH(jit::kernel_config(dc, "dc_maxreg=16"), Catch::Contains("dc_maxreg=16"));
  CHECK(jit::generate_source(dc, "sm_90", "").find("MOEGEMV_DC_LAUNCH") == std::string::npos);
  CHECK(jit::generate_source(dc, "sm_90", "dc_launch=2").find("#define MOEGEMV_DC_LAUNCH 2") !=
        std::string::npos);
  CHECK_THROWS_WITH(jit::kernel_config(dc, "dc_launch=3"), Catch::Contains("dc_launch=3"));
  // The carveout hint is set on the loaded functions: a config field, not a source change.
  CHECK(jit::kernel_config(gu, "").carve == 0);
  CHECK(jit::kernel_config(gu, "gu_carve=0").carve == 1);
  CHECK(jit::kernel_config(dc, "dc_carve=100").carve == 101);
  CHECK(jit::kernel_config(dc, "gu_carve=0").carve == 0);
  CHECK(jit::generate_source(gu, "sm_90", "gu_carve=0") == jit::generate_source(gu, "sm_90", ""));
  CHECK_THROWS_WITH(jit::kernel_config(gu, "gu_carve=101"), Catch::Contains("gu_carve=101"));
  CHECK(jit::generate_source(dc, "sm_90", "dc_timeline=7").find("#define MOEGEMV_TIMELINE 7") !=
        std::string::npos);
  // 8..11: a wait's sum over the CTA's units (session 27), on the streaming down only.
  CHECK(jit::generate_source(dc, "sm_90", "dc_timeline=11").find("#define MOEGEMV_TIMELINE 11") !=
        std::string::npos);
  CHECK_THROWS_WITH(jit::kernel_config(dc, "dc_timeline=12"), Catch::Contains("dc_timeline=12"));
  CHECK_THROWS_WITH(jit::kernel_config(gu, "gu_timeline=2"), Catch::Contains("gu_timeline=2"));
  // Per-warp act staging by default: 1 where the down has one warp per segment (Qwen3-Next,
  // session 8), 2 where it has several and at most 14 segments (DeepSeek-V3: 2 warps x 9; session
  // 9), never on the classic kernel.
  CHECK(jit::generate_source(qwen_dc, "sm_90", "").find("#define MOEGEMV_DC_WSTAGE 1") !=
        std::string::npos);
  CHECK(jit::generate_source(qwen_dc, "sm_90", "dc_wstage=0").find("MOEGEMV_DC_WSTAGE") ==
        std::string::npos);
  CHECK(jit::kernel_config(dc, "").chunks == 2);
  CHECK(jit::kernel_config(dc, "").wstage == 2);
  CHECK(jit::generate_source(dc, "sm_90", "").find("#define MOEGEMV_DC_WSTAGE 2") !=
        std::string::npos);
  CHECK(jit::generate_source(dc, "sm_90", "dc_wstage=1").find("MOEGEMV_DC_WSTAGE") ==
        std::string::npos);
  CHECK(jit::kernel_config(classic_dc, "").wstage == 0);
  const Key many{Kind::kDownCombine, 4096, 1024, 0, 15};  // 15 segments, 2 warps each
  CHECK(jit::kernel_config(many, "").chunks > 1);
  CHECK(jit::kernel_config(many, "").stream == 1);
  CHECK(jit::kernel_config(many, "").wstage == 0);
  CHECK(jit::generate_source(classic_dc, "sm_90", "").find("MOEGEMV_DC_WSTAGE") == std::string::npos);
  // 2: also with several warps per segment (a barrier id each, so at most 14 segments).
  CHECK(jit::generate_source(dc, "sm_90", "dc_wstage=2").find("#define MOEGEMV_DC_WSTAGE 2") !=
        std::string::npos);
  CHECK_THROWS_WITH(jit::kernel_config(Key{Kind::kDownCombine, 2048, 512, 512, 16}, "dc_wstage=2"),
                    Catch::Contains("dc_wstage=2"));
  CHECK_THROWS_WITH(jit::kernel_config(dc, "dc_wstage=3"), Catch::Contains("dc_wstage=3"));
  CHECK_THROWS_WITH(jit::kernel_config(gu, "gu_wstage=1"), Catch::Contains("gu_wstage=1"));
  CHECK_THROWS_WITH(jit::kernel_config(gu, "gu_launch=1"), Catch::Contains("gu_launch=1"));
  CHECK(jit::generate_source(dc, "sm_90", "dc_timeline=3").find("#define MOEGEMV_TIMELINE 3") !=
        std::string::npos);
  CHECK_THROWS_WITH(jit::kernel_config(gu, "gu_timeline=2"), Catch::Contains("gu_timeline=2"));
  // The M = 1 gate_up kernel (session 8): a second instantiation with 3 steps in flight at 8
  // CTAs/SM where H <= 2048 (Qwen3-Next; on the split tile since v58, test_m1split.cpp, so asked
  // for here with gu_m1split=0), none on the wide shapes; knobs turn it off or on; the streaming
  // gate_up and down_combine have none.
  const Key qwen_gu{Kind::kGateUp, 2048, 512, 512, 10};
  const std::string qwen_src = jit::generate_source(qwen_gu, "sm_90", "gu_m1split=0");
  CHECK(qwen_src.find("__launch_bounds__(64, 8)\nmoegemv_gate_up_2048_512_512_10_m1(") !=
        std::string::npos);
  CHECK(qwen_src.find("moegemv::gate_up<2048, 512, 512, 10, 2, 3, ") != std::string::npos);
  CHECK(qwen_src.find("__launch_bounds__(64, 10)\nmoegemv_gate_up_2048_512_512_10(") !=
        std::string::npos);
  CHECK(jit::single_token_kernel_name(qwen_gu) == "moegemv_gate_up_2048_512_512_10_m1");
  CHECK(jit::has_single_token_kernel(jit::kernel_config(qwen_gu, "")));
  CHECK_FALSE(jit::has_single_token_kernel(jit::kernel_config(qwen_gu, "gu_m1pipe=0")));
  CHECK(jit::generate_source(qwen_gu, "sm_90", "gu_m1pipe=0").find("_m1(") == std::string::npos);
  CHECK_FALSE(jit::has_single_token_kernel(jit::kernel_config(qwen_gu, "gu_stream=1")));
  CHECK_FALSE(jit::has_single_token_kernel(jit::kernel_config(gu, "")));  // DeepSeek-V3: split tile
  CHECK(jit::generate_source(gu, "sm_90", "").find("_m1(") == std::string::npos);
  const Key llama_gu{Kind::kGateUp, 5120, 8192, 8192, 1};  // K = 1: 3 steps at 4 CTAs/SM
  const std::string llama_src = jit::generate_source(llama_gu, "sm_90", "");
  CHECK(llama_src.find("__launch_bounds__(128, 4)\nmoegemv_gate_up_5120_8192_8192_1_m1(") !=
        std::string::npos);
  CHECK(llama_src.find("__launch_bounds__(128, 5)\nmoegemv_gate_up_5120_8192_8192_1(") !=
        std::string::npos);
  CHECK_FALSE(jit::has_single_token_kernel(
      jit::kernel_config(Key{Kind::kGateUp, 5120, 1536, 1536, 8}, "")));
  const KernelConfig asked = jit::kernel_config(gu, "gu_m1pipe=3");
  CHECK(asked.m1_pipe == 3);
  CHECK(asked.m1_minb == asked.min_blocks);
  CHECK(jit::kernel_config(gu, "gu_m1pipe=3,gu_m1minb=2").m1_minb == 2);
  CHECK_FALSE(jit::has_single_token_kernel(jit::kernel_config(qwen_dc, "")));
  CHECK_THROWS_WITH(jit::kernel_config(qwen_dc, "dc_m1pipe=3"), Catch::Contains("dc_m1pipe=3"));
  CHECK_THROWS_WITH(jit::kernel_config(qwen_gu, "gu_m1pipe=9"), Catch::Contains("gu_m1pipe=9"));
  // The producer's copies (session 7): two runs per slot; one producer lane per segment only at
  // I <= 512 (Qwen3-Next), lane 0 in order elsewhere; bad values name themselves; gate_up has no
  // such knob.
  const Key qwen{Kind::kDownCombine, 2048, 512, 512, 10};
  CHECK(jit::kernel_config(dc, "").runs == 2);
  CHECK(jit::kernel_config(dc, "").lanes == 0);
  CHECK(jit::kernel_config(glm, "").lanes == 0);
  CHECK(jit::kernel_config(qwen, "").lanes == 1);
  CHECK(jit::kernel_config(qwen, "dc_lanes=0").lanes == 0);
  CHECK(jit::generate_source(qwen, "sm_90", "").find("#define MOEGEMV_DC_LANES 1") != std::string::npos);
  CHECK(jit::kernel_config(dc, "dc_runs=1,dc_lanes=1").runs == 1);
  CHECK(jit::kernel_config(dc, "dc_runs=1,dc_lanes=1").lanes == 1);
  CHECK(jit::generate_source(dc, "sm_90", "").find("MOEGEMV_DC_RUNS") == std::string::npos);
  CHECK(jit::generate_source(dc, "sm_90", "").find("MOEGEMV_DC_LANES") == std::string::npos);
  CHECK_THROWS_WITH(jit::kernel_config(dc, "dc_runs=3"), Catch::Contains("dc_runs=3"));
  CHECK(jit::kernel_config(dc, "dc_lanes=3").lanes == 3);
  CHECK_THROWS_WITH(jit::kernel_config(dc, "dc_lanes=4"), Catch::Contains("dc_lanes=4"));
  CHECK(jit::kernel_config(dc, "").early == 0);
  CHECK(jit::generate_source(dc, "sm_90", "dc_early=1").find("#define MOEGEMV_DC_EARLY 1") !=
        std::string::npos);
  CHECK_THROWS_WITH(jit::kernel_config(dc, "dc_early=2"), Catch::Contains("dc_early=2"));
  CHECK(jit::kernel_config(dc, "").spre == 0);
  CHECK(jit::generate_source(dc, "sm_90", "").find("MOEGEMV_DC_SPRE") == std::string::npos);
  CHECK(jit::generate_source(dc, "sm_90", "dc_spre=1").find("#define MOEGEMV_DC_SPRE 1") !=
        std::string::npos);
  CHECK(jit::generate_source(dc, "sm_90", "dc_spre=3").find("#define MOEGEMV_DC_SPRE 3") !=
        std::string::npos);
  CHECK_THROWS_WITH(jit::kernel_config(dc, "dc_spre=4"), Catch::Contains("dc_spre=4"));
  CHECK_THROWS_WITH(jit::kernel_config(Key{Kind::kGateUp, 7168, 2048, 2048, 8}, "gu_runs=1"),
                    Catch::Contains("gu_runs=1"));
  // An explicit depth is kept; one that does not fit falls back to the classic kernel.
  CHECK(jit::kernel_config(dc, "dc_stream=1,dc_pipe=2").pipe == 2);
  CHECK(jit::kernel_config(dc, "dc_stream=1,dc_pipe=8").stream == 0);
  // The defaults: streaming where the shape takes it (docs/PERF.md, session 3).
  CHECK(jit::kernel_config(dc, "").stream == kStreamDownDefault);
  CHECK(jit::kernel_config(Key{Kind::kGateUp, 7168, 2048, 2048, 8}, "").stream == kStreamGateUpDefault);
  CHECK(jit::kernel_config(Key{Kind::kDownCombine, 2048, 1408, 5632, 4}, "").stream == 0);
}

TEST_CASE("the decode's bf16x2 pairs cover a word's 8 elements once", "[codegen]") {
  // templates/params.h: shared by the kernels' decode and x permutation (nvfp4.cuh, tile.cuh)
  // and the host's probe check; the GPU probe checks the values, this the bookkeeping.
  int seen = 0;
  for (int p = 0; p < 4; ++p)
    for (int half = 0; half < 2; ++half) {
      const int e = decode_pair_element(p, half);
      REQUIRE(e >= 0);
      REQUIRE(e < 8);
      CHECK((seen & (1 << e)) == 0);
      seen |= 1 << e;
    }
  CHECK(seen == 0xFF);
  CHECK(kDecodeShift > 0);
}
