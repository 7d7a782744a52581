#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "jit/codegen.hpp"
#include "jit/nvrtc.hpp"
#include "moegemv/errors.hpp"
#include "shapes.hpp"
#include "spills.hpp"

using namespace moegemv;

namespace {
// Known (session 36, v60): the 4-warp M = 1 kernel of the H <= 2048 shapes whose M = 1 grid is
// one wave has 80 registers on sm_90 (6 CTAs of 4 warps: 6 warps in each register-file quarter)
// and spills 20 bytes, stored once before its loop and loaded before the loop and in its epilogue
// (SASS); with them it measured faster than v59's 153-register kernel (docs/PERF.md, session 36
// call 16). Every other kernel of the module, and that one on sm_100a: no spill.
void check_spills(const std::string& log, const Key& key, const std::string& tune,
                  const std::string& arch) {
  const KernelConfig c = jit::kernel_config(key, tune);
  const bool v60 = arch == "sm_90" && key.kind == Kind::kGateUp &&
                   jit::has_single_token_kernel(c) && c.m1_split && c.m1_pipe == 1 &&
                   jit::single_token_warps(c) == 4;
  const int m1 = v60 ? kernel_spill_bytes(log, jit::single_token_kernel_name(key)) : 0;
  CHECK(m1 <= (v60 ? 20 : 0));
  CHECK(spill_bytes(log) == m1);  // none elsewhere
}

// key's module with `tune`: its source has `define`, and it compiles without spills (but
// check_spills's known one).
void compiles_clean(const Key& key, const std::string& tune, const std::string& define) {
  INFO(key.str() << " " << tune);
  const std::string source = jit::generate_source(key, "sm_90", tune);
  CHECK(source.find(define) != std::string::npos);
  auto out = jit::compile(source, key.str(), "sm_90", jit::compile_options("sm_90"));
  CHECK(out.cubin.size() > 1000);
  check_spills(out.log, key, tune, "sm_90");
}
}  // namespace

TEST_CASE("every issue shape compiles for sm_90 and sm_100a", "[nvrtc]") {
  for (const std::string arch : {"sm_90", "sm_100a"}) {
    for (const auto& key : issue_keys()) {
      INFO(key.str() << " " << arch);
      auto out = jit::compile(jit::generate_source(key, arch), key.str(), arch,
                              jit::compile_options(arch));
      CHECK(out.cubin.size() > 1000);
      check_spills(out.log, key, "", arch);
      // The M = 1 kernel (session 8) sits beside the general one where the config has one.
      const std::string image(out.cubin.begin(), out.cubin.end());
      CHECK((image.find(jit::single_token_kernel_name(key)) != std::string::npos) ==
            jit::has_single_token_kernel(jit::kernel_config(key, "")));
      if (key.h == 7168 && arch == "sm_90") WARN(key.str() << ":\n" << out.log);
    }
  }
}

TEST_CASE("the opt-in kernel configs compile without spills", "[nvrtc]") {
  // The shared-memory ring (both ops), the persistent down_combine, 16-row down tiles, gate_up's
  // split rows; on DeepSeek-V3 and on a shape with 64-element tails and SI > I.
  const std::vector<std::string> tunes = {
      "gu_ring=1,gu_pipe=3,gu_minb=5",
      "dc_direct=0,dc_ring=1,dc_pipe=3,dc_minb=3",
      "dc_direct=0,dc_ring=2,dc_warps=12,dc_pipe=3,dc_minb=1",
      "dc_stream=0,dc_split=0",
      "gu_stream=0,dc_stream=0",
      "gu_split=1,gu_minb=4",
      "gu_split=1,gu_pipe=1",
  };
  for (const auto& tune : tunes) {
    for (const Kind kind : {Kind::kGateUp, Kind::kDownCombine}) {
      for (const Key& key : {Key{kind, 7168, 2048, 2048, 8}, Key{kind, 2048, 1408, 5632, 4}}) {
        INFO(key.str() << " " << tune);
        const std::string source = jit::generate_source(key, "sm_90", tune);
        auto out = jit::compile(source, key.str(), "sm_90", jit::compile_options("sm_90"));
        CHECK(out.cubin.size() > 1000);
        // Known (session 20): gu_split=1 on the 2048:1408 shape, where the split tile is not the
        // default, gives the module's M = 1 kernel (3 steps in flight) an 8-byte spill.
        const bool known = kind == Kind::kGateUp && key.h == 2048 && tune.rfind("gu_split=1", 0) == 0;
        CHECK(spill_bytes(out.log) <= (known ? 8 : 0));
        if (kind == Kind::kDownCombine && tune == "dc_stream=0,dc_split=0") CHECK(source.find(", false>(p)") != std::string::npos);
        // gate_up: SPLIT, then the shared expert's SHX (0 here)
        if (kind == Kind::kGateUp && tune.rfind("gu_split=1", 0) == 0)
          CHECK(source.find(", true, 0>(p)") != std::string::npos);
      }
    }
  }
}

TEST_CASE("the code-form candidates compile without spills on the presets' default configs", "[nvrtc]") {
  // Session 14's knobs: the decode on the FMA pipe, int B indices, the grouped down's units
  // counted, the shared expert's x staged at M = 1 (same bits); its split tile (gu_shx=2); v60's
  // 4-warp M = 1 kernel (the default where it fits since session 37; its known spill on
  // Qwen3-Next's shape, check_spills).
  const std::vector<std::string> tunes = {
      "gu_decode=3,dc_decode=3,gu_bindex=1,dc_bindex=1,dc_gcount=1,gu_shx=1", "gu_shx=2",
      "gu_m1warps=4"};
  std::vector<Key> keys;
  for (const Kind kind : {Kind::kGateUp, Kind::kDownCombine})
    for (const Key& key : {Key{kind, 7168, 2048, 2048, 8}, Key{kind, 5120, 1536, 1536, 8},
                           Key{kind, 5120, 8192, 8192, 1}, Key{kind, 2048, 512, 512, 10}})
      keys.push_back(key);
  for (const auto& tune : tunes) {
    for (const Key& key : keys) {
      INFO(key.str() << " " << tune);
      const std::string source = jit::generate_source(key, "sm_90", tune);
      auto out = jit::compile(source, key.str(), "sm_90", jit::compile_options("sm_90"));
      CHECK(out.cubin.size() > 1000);
      check_spills(out.log, key, tune, "sm_90");
    }
  }
}

TEST_CASE("the streaming kernels compile without spills for every shape that takes them", "[nvrtc]") {
  for (const Key& key : issue_keys()) {
    const std::string source = jit::generate_source(key, "sm_90", "gu_stream=1,dc_stream=1");
    const bool streams = source.find("_stream<") != std::string::npos;
    // Only the down_combine of K lengths that are not multiples of 256 keeps the classic kernel.
    CHECK(streams == (key.kind == Kind::kGateUp || (key.i % 256 == 0 && key.si % 256 == 0)));
    if (!streams) continue;
    INFO(key.str());
    auto out = jit::compile(source, key.str(), "sm_90", jit::compile_options("sm_90"));
    CHECK(out.cubin.size() > 1000);
    CHECK_FALSE(spills(out.log));
  }
}

TEST_CASE("the streaming down compiles without spills with either scale feed and producer", "[nvrtc]") {
  const std::pair<const char*, const char*> tunes[] = {
      {"dc_sahead=1", nullptr},
      {"dc_sahead=2", "#define MOEGEMV_DC_SAHEAD 2"},
      {"dc_runs=1", "#define MOEGEMV_DC_RUNS 1"},
      {"dc_lanes=1", "#define MOEGEMV_DC_LANES 1"},
      {"dc_lanes=2", "#define MOEGEMV_DC_LANES 2"},
      {"dc_lanes=3", "#define MOEGEMV_DC_LANES 3"},
      {"dc_early=1", "#define MOEGEMV_DC_EARLY 1"},
      {"dc_spre=1", "#define MOEGEMV_DC_SPRE 1"},
      {"dc_spre=1,dc_lanes=1", "#define MOEGEMV_DC_SPRE 1"},
      {"dc_spre=2", "#define MOEGEMV_DC_SPRE 2"},
      {"dc_spre=2,dc_lanes=1", "#define MOEGEMV_DC_SPRE 2"},
      {"dc_spre=3", "#define MOEGEMV_DC_SPRE 3"},
      {"dc_spre=3,dc_lanes=1", "#define MOEGEMV_DC_SPRE 3"},
      {"dc_spre=3,dc_lanes=2", "#define MOEGEMV_DC_SPRE 3"},
      {"dc_launch=1", "#define MOEGEMV_DC_LAUNCH 1"},
      {"dc_launch=2", "#define MOEGEMV_DC_LAUNCH 2"},
      {"dc_wstage=1", "#define MOEGEMV_DC_WSTAGE 1"},
      {"dc_wstage=2", "#define MOEGEMV_DC_WSTAGE 2"}};
  for (const Key& key : issue_keys()) {
    if (key.kind != Kind::kDownCombine || key.i % 256 != 0 || key.si % 256 != 0) continue;
    // Two CTAs per SM (the default cap of 72 registers, session 8) leave no room for the variants
    // (the scale ring spills 20 bytes there): they are measured, and compiled here, without it.
    const bool capped = jit::kernel_config(key, "").maxreg != 0;
    for (const auto& [name, define] : tunes) {
      const int segments = down_stream_segments(key.si, key.k);
      if (std::string(name) == "dc_wstage=2" && segments > kDownWarpStageMaxSegments) continue;
      const std::string tune = std::string(name) + (capped ? ",dc_maxreg=0" : "");
      INFO(key.str() << " " << tune);
      const std::string source = jit::generate_source(key, "sm_90", tune);
      // Per-warp staging applies only where the down has one warp per segment.
      const bool applies =
          std::string(name) != "dc_wstage=1" || jit::kernel_config(key, tune).chunks == 1;
      if (define) CHECK((source.find(define) != std::string::npos) == applies);
      if (!define) CHECK(source.find("#define MOEGEMV_DC_SAHEAD 2") == std::string::npos);
      auto out = jit::compile(source, key.str(), "sm_90", jit::compile_options("sm_90"));
      CHECK(out.cubin.size() > 1000);
      // Known (session 20): where dc_wstage=1 does not apply (several warps per segment) the down
      // stages act CTA-wide (dc_wstage=0), and on DeepSeek-V3's shape that spills (24 bytes of stores);
      // since v55 (2 slots per segment, session 27) on GLM-4.5's too, uncapped (16 bytes).
      const bool known = std::string(name) == "dc_wstage=1" && !applies &&
                         (key.h == 7168 || (key.h == 5120 && key.i == 1536));
      CHECK(spill_bytes(out.log) <= (known ? 24 : 0));
    }
  }
}

TEST_CASE("the scale-after candidate (dc_safter=1) compiles without spills where it applies", "[nvrtc]") {
  int compiled = 0;
  for (const Key& key : issue_keys()) {
    if (key.kind != Kind::kDownCombine || key.i % 256 != 0 || key.si % 256 != 0) continue;
    INFO(key.str());
    KernelConfig c;
    try {
      c = jit::kernel_config(key, "dc_safter=1");
    } catch (const ArgumentError& e) {
      // Only where the form cannot go: SI neither 0 nor I (an uneven step split), and the error
      // names it.
      CHECK(key.si != 0);
      CHECK(key.si != key.i);
      CHECK_THAT(e.what(), Catch::Contains("dc_safter=1"));
      continue;
    }
    CHECK(c.safter == 1);
    compiles_clean(key, "dc_safter=1", "#define MOEGEMV_DC_SAFTER 1");
    ++compiled;
  }
  CHECK(compiled >= 4);
}

TEST_CASE("gate_up's scale-after candidate (gu_safter=1) compiles without spills where it applies",
          "[nvrtc]") {
  int compiled = 0;
  for (const Key& key : issue_keys()) {
    if (key.kind != Kind::kGateUp || jit::kernel_config(key, "gu_safter=1").safter == 0) continue;
    compiles_clean(key, "gu_safter=1", "#define MOEGEMV_GU_SAFTER 1");
    ++compiled;
  }
  CHECK(compiled >= 6);  // the split tile (DeepSeek-V3, GLM-4.5) and the 16-row one (the rest)
  // With the shared expert's x staged at M = 1 (gu_shx), its tiles take the form too: split
  // (gu_shx=2 where the routed tiles are split) or 16-row.
  const std::string tune = "gu_safter=1,gu_shx=2";
  compiles_clean(Key{Kind::kGateUp, 7168, 2048, 2048, 8}, tune, "0, true, 2>(p);");
  compiles_clean(Key{Kind::kGateUp, 5120, 8192, 8192, 1}, tune, "0, false, 2>(p);");
}

TEST_CASE("gate_up's sector-paired features (gu_spair=1) compile without spills where they apply", "[nvrtc]") {
  int compiled = 0;
  for (const Key& key : issue_keys()) {
    if (key.kind != Kind::kGateUp || jit::kernel_config(key, "gu_spair=1").spair == 0) continue;
    compiles_clean(key, "gu_spair=1", "#define MOEGEMV_GU_SPAIR 1");  // with its two-tile kernel
    ++compiled;
  }
  CHECK(compiled >= 6);  // the split tile (DeepSeek-V3, GLM-4.5) and the 16-row one (the rest)
}

TEST_CASE("the diagnostic CTA timeline compiles into both kernels without spills", "[nvrtc]") {
  for (const char* tune : {"gu_timeline=1", "dc_timeline=1", "dc_timeline=1,dc_stream=0",
                           "dc_timeline=3", "dc_timeline=5", "dc_timeline=6", "dc_timeline=7"}) {
    const Key key{tune[0] == 'g' ? Kind::kGateUp : Kind::kDownCombine, 7168, 2048, 2048, 8};
    INFO(key.str() << " " << tune);
    auto out = jit::compile(jit::generate_source(key, "sm_90", tune), key.str(), "sm_90",
                            jit::compile_options("sm_90"));
    const std::string image(out.cubin.begin(), out.cubin.end());
    CHECK(image.find("moegemv_timeline") != std::string::npos);  // the global the bench reads
    CHECK_FALSE(spills(out.log));
  }
}

TEST_CASE("the decode probe compiles in every decode form", "[nvrtc]") {
  for (int form = 0; form <= kDecodeFormMax; ++form) {
    auto out = jit::compile(jit::probe_source("sm_90", form), "probe", "sm_90", jit::compile_options("sm_90"));
    CHECK(out.cubin.size() > 100);
  }
  CHECK_THROWS_AS(jit::probe_source("sm_90", kDecodeFormMax + 1), ArgumentError);
}

TEST_CASE("the bench's and the check's diagnostic kernels compile", "[nvrtc]") {
  for (const auto& source : {jit::stream_read_source("sm_90"), jit::tile_read_source("sm_90"),
                             jit::safter_probe_source("sm_90"), jit::hot_read_source("sm_90")}) {
    auto out = jit::compile(source, "diagnostic", "sm_90", jit::compile_options("sm_90"));
    CHECK(out.cubin.size() > 100);
    CHECK_FALSE(spills(out.log));
  }
  const auto probe = jit::compile(jit::safter_probe_source("sm_90"), "probe", "sm_90", jit::compile_options("sm_90"));
  const std::string image(probe.cubin.begin(), probe.cubin.end());
  CHECK(image.find(jit::kSafterProbeKernel) != std::string::npos);
  const auto hot = jit::compile(jit::hot_read_source("sm_90"), "hot", "sm_90", jit::compile_options("sm_90"));
  const std::string hot_image(hot.cubin.begin(), hot.cubin.end());
  CHECK(hot_image.find(jit::kHotReadKernel) != std::string::npos);
  CHECK(hot_image.find(std::string(jit::kHotReadKernel) + "_cluster") != std::string::npos);
}

TEST_CASE("a compile error carries key, arch, options and log", "[nvrtc]") {
  try {
    jit::compile("this is not cuda", "gate_up:64:64:0:1", "sm_90", jit::compile_options("sm_90"));
    FAIL("expected CompileError");
  } catch (const CompileError& e) {
    CHECK(e.key == "gate_up:64:64:0:1");
    CHECK(e.arch == "sm_90");
    CHECK(e.options == jit::compile_options("sm_90"));
    CHECK_THAT(e.log, Catch::Contains("error"));
  }
}

TEST_CASE("NVRTC reports its version and archs", "[nvrtc]") {
  CHECK_THAT(jit::nvrtc_version(), Catch::StartsWith("13."));
  CHECK_NOTHROW(jit::check_arch_supported("sm_90"));
  CHECK_NOTHROW(jit::check_arch_supported("sm_100a"));
  CHECK_THROWS_AS(jit::check_arch_supported("sm_10"), ArgumentError);
}
