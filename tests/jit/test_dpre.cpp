// gate_up's ask of the down's weights (gate_up_dpre.cuh, gu_dpre=1..3; session 39, v62): the
// shares its CTAs ask L2 for, the default's rule, which kernel of a module takes it, and that the
// kernels compile spilling no more than without it; gu_dprek, each share asked by k CTAs (session
// 40). Results never depend on it;
// `MOEGEMV_TUNE=gu_dpre=1 moegemv check` runs it.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "jit/codegen.hpp"
#include "jit/nvrtc.hpp"
#include "moegemv/errors.hpp"
#include "templates/params.h"

namespace {

using namespace moegemv;

const Key kQwenNext{Kind::kGateUp, 2048, 512, 512, 10};
const Key kDeepSeek{Kind::kGateUp, 7168, 2048, 2048, 8};

// The template arguments' tail of the kernel `name` in a generated source ("" if absent): the
// M = 1 kernel's ends in ", TILES, DPRE" where it takes the prefetch.
std::string kernel_call(const std::string& source, const std::string& name) {
  const auto at = source.find(name + "(");
  if (at == std::string::npos) return "";
  const auto open = source.find("moegemv::gate_up<", at), close = source.find(">(p)", open);
  return source.substr(open, close - open + 1);
}
bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

TEST_CASE("gu_dpre's shares cover a block once in 16-byte aligned pieces", "[codegen]") {
  // Blocks of the presets' down (weights H * LEN / 2, scales) and odd ones; shares per block.
  for (const long long bytes :
       {16LL, 48LL, 4096LL, 1LL << 19, 2048LL * 256 + 16 * 7, swizzled_block_bytes(2048, 512),
        swizzled_block_bytes(7168, 2048), swizzled_block_bytes(5120, 1536)}) {
    for (const int n : {1, 2, 3, 7, 64, 96, 192, 256, 1000}) {
      INFO("bytes " << bytes << ", shares " << n);
      long long next = 0;  // the shares, in order, tile [0, bytes) without gaps or overlaps
      for (int c = 0; c < n; ++c) {
        const ByteShare s = gate_up_dpre_share(bytes, c, n);
        if (s.len == 0) continue;
        CHECK(s.off == next);
        CHECK(s.off % 16 == 0);
        CHECK(s.len % 16 == 0);
        next = s.off + s.len;
      }
      CHECK(next == bytes);
    }
  }
  // A share past the end is empty; the pieces are as even as 16 bytes allow.
  CHECK(gate_up_dpre_share(48, 5, 8).len == 0u);
  CHECK(gate_up_dpre_share(2048LL * 256, 0, 64).len == 8192u);
  CHECK(swizzled_block_bytes(2048, 512) == 2048 * 32);
  CHECK(swizzled_block_bytes(200, 96) == 256 * 8);  // rows to 128, K atoms to 4 columns
}

TEST_CASE("gu_dpre by default (v62): where one token's down block is at most 8 MiB", "[codegen]") {
  // Qwen3-Next: 10 experts' and the shared expert's [2048, 256] bytes and [2048, 32] scales.
  CHECK(down_token_bytes(2048, 512, 512, 10) == 11LL * (2048 * 256 + 2048 * 32));
  CHECK(down_block_bytes(200, 96) == 200 * 48 + 256 * 8);
  struct Case {
    Key key;
    int dpre;
  };
  for (const Case& c : {Case{kQwenNext, 2}, Case{Key{Kind::kGateUp, 2048, 512, 512, 8}, 2},
                        Case{Key{Kind::kGateUp, 2048, 768, 0, 8}, 2},      // Qwen3-30B: 7.1 MB
                        Case{Key{Kind::kGateUp, 2048, 1408, 5632, 4}, 0},  // Qwen2-MoE: 12.9 MB
                        Case{Key{Kind::kGateUp, 5120, 1536, 1536, 8}, 0},  // GLM-4.5
                        Case{Key{Kind::kGateUp, 5120, 8192, 8192, 1}, 0}, Case{kDeepSeek, 0}}) {
    INFO(c.key.str());
    CHECK(jit::kernel_config(c.key, "").dpre == c.dpre);
    const std::string source = jit::generate_source(c.key, "sm_90", "");
    // Only the M = 1 kernel takes it (present but unused at M >= 2, it cost gate_up there).
    CHECK(ends_with(kernel_call(source, jit::single_token_kernel_name(c.key)), ", 1, 2>") ==
          (c.dpre == 2));
    CHECK_FALSE(ends_with(kernel_call(source, jit::kernel_name(c.key)), ", 1, 2>"));
  }
  CHECK(down_token_bytes(2048, 768, 0, 8) <= kGateUpDpreMaxBytes);
  CHECK(down_token_bytes(2048, 1408, 5632, 4) > kGateUpDpreMaxBytes);
  CHECK(kGateUpDpreMaxM == 1);  // the launch drops the hint from M = 2 on (runtime/api.cpp)
}

TEST_CASE("gu_dpre: which kernel takes it, and its errors", "[codegen]") {
  const std::string none = jit::generate_source(kQwenNext, "sm_90", "gu_dpre=0");
  CHECK(ends_with(kernel_call(none, jit::single_token_kernel_name(kQwenNext)), ", 2>"));  // SHX
  CHECK(none.find("MOEGEMV_GU_DPRE") == std::string::npos);
  for (const int form : {1, 2, 3}) {
    const std::string tune = "gu_dpre=" + std::to_string(form),
                      tail = ", 1, " + std::to_string(form) + ">";
    INFO(tune);
    CHECK(jit::kernel_config(kQwenNext, tune).dpre == form);
    const std::string qwen = jit::generate_source(kQwenNext, "sm_90", tune);
    CHECK(ends_with(kernel_call(qwen, jit::single_token_kernel_name(kQwenNext)), tail));
    CHECK_FALSE(ends_with(kernel_call(qwen, jit::kernel_name(kQwenNext)), tail));
    // DeepSeek-V3's module has no M = 1 kernel: its general kernel takes the asked form, its
    // two-tile kernel (M >= 2 only) none.
    const std::string ds = jit::generate_source(kDeepSeek, "sm_90", tune);
    CHECK(jit::kernel_config(kDeepSeek, tune).dpre == form);
    CHECK(kernel_call(ds, jit::single_token_kernel_name(kDeepSeek)).empty());
    CHECK(ends_with(kernel_call(ds, jit::kernel_name(kDeepSeek)), tail));
    CHECK(ends_with(kernel_call(ds, jit::many_token_kernel_name(kDeepSeek)), ", 2>"));
  }
  // The streaming gate_up does not take it; a stream that cannot be falls back and keeps it.
  CHECK(jit::kernel_config(kQwenNext, "gu_dpre=1,gu_stream=1").dpre == 0);
  CHECK(jit::kernel_config(kDeepSeek, "gu_stream=1,gu_warps=32,gu_dpre=2").stream == 0);
  CHECK(jit::kernel_config(kDeepSeek, "gu_stream=1,gu_warps=32,gu_dpre=2").dpre == 2);
  CHECK_THROWS_AS(jit::kernel_config(kQwenNext, "gu_dpre=4"), ArgumentError);
  CHECK_THROWS_AS(jit::kernel_config(Key{Kind::kDownCombine, 2048, 512, 512, 10}, "dc_dpre=1"),
                  ArgumentError);
}

TEST_CASE("gu_dprek: each share asked by k CTAs spread over the n, the CTA's own first",
          "[codegen]") {
  for (const int n : {64, 48, 6, 3, 1}) {
    for (const int k : {1, 2, 4, 8}) {
      INFO("n " << n << " k " << k);
      const int copies = gate_up_dpre_copies(k, n);
      CHECK(copies == (k < n ? k : n));
      std::vector<int> asked(static_cast<std::size_t>(n), 0);
      for (int c = 0; c < n; ++c) {
        CHECK(gate_up_dpre_copy(c, 0, k, n) == c);
        for (int j = 0; j < copies; ++j) {
          const int share = gate_up_dpre_copy(c, j, k, n);
          REQUIRE(share >= 0);
          REQUIRE(share < n);
          ++asked[static_cast<std::size_t>(share)];
        }
      }
      for (int share = 0; share < n; ++share)
        CHECK(asked[static_cast<std::size_t>(share)] == copies);
    }
  }
  const std::string four = jit::generate_source(kQwenNext, "sm_90", "gu_dprek=4");
  CHECK(four.find("#define MOEGEMV_GU_DPREK 4\n") != std::string::npos);
  CHECK(jit::kernel_config(kQwenNext, "gu_dprek=4").dprek == 4);
  // Without the prefetch the knob changes no source; 1 is the default's source.
  CHECK(jit::generate_source(kQwenNext, "sm_90", "gu_dpre=0,gu_dprek=4") ==
        jit::generate_source(kQwenNext, "sm_90", "gu_dpre=0"));
  CHECK(jit::generate_source(kQwenNext, "sm_90", "gu_dprek=1") ==
        jit::generate_source(kQwenNext, "sm_90", ""));
  // A stream that cannot be falls back to the classic kernel and keeps it (as gu_dpre).
  CHECK(jit::kernel_config(kDeepSeek, "gu_stream=1,gu_warps=32,gu_dprek=4").dprek == 4);
  CHECK_THROWS_AS(jit::kernel_config(kQwenNext, "gu_dprek=3"), ArgumentError);
  CHECK_THROWS_AS(jit::kernel_config(Key{Kind::kDownCombine, 2048, 512, 512, 10}, "dc_dprek=2"),
                  ArgumentError);
}

// Each function's spill-store bytes, in the order of the NVRTC log.
std::vector<long> spill_stores(const std::string& log) {
  std::vector<long> bytes;
  for (std::size_t at = 0; (at = log.find(" bytes spill stores", at)) != std::string::npos; ++at) {
    const auto number = log.rfind(' ', at - 1) + 1;
    bytes.push_back(std::stol(log.substr(number, at - number)));
  }
  return bytes;
}

TEST_CASE("gu_dpre's kernels compile, spilling no more than without it", "[nvrtc]") {
  // (Qwen3-Next's M = 1 kernel spills 20 bytes at 6 CTAs/SM without it: v59-v61; 12 with v62's.)
  for (const Key& key : {kQwenNext, kDeepSeek}) {
    auto compile = [&](const char* tune) {
      return jit::compile(jit::generate_source(key, "sm_90", tune), key.str(), "sm_90",
                          jit::compile_options("sm_90"));
    };
    const std::vector<long> base = spill_stores(compile("gu_dpre=0").log);
    REQUIRE_FALSE(base.empty());
    for (const char* tune : {"gu_dpre=1", "gu_dpre=2", "gu_dpre=3", "gu_dpre=2,gu_dprek=8"}) {
      INFO(key.str() << " " << tune);
      const auto out = compile(tune);
      CHECK_FALSE(out.cubin.empty());
      const std::vector<long> spills = spill_stores(out.log);
      REQUIRE(spills.size() == base.size());
      for (std::size_t f = 0; f < spills.size(); ++f) CHECK(spills[f] <= base[f]);
    }
  }
}
