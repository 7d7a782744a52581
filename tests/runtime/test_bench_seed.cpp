// The bench's seeds (tools/harness/bench.hpp, --seed, session 18): runs given one seed build the
// same weights, routing and inputs, so variants compared at M >= 2 touch the same bytes; and what
// its JSON carries (the seed, each row's batches). No GPU.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <set>

#include "tools/harness/bench.hpp"

using moegemv::harness::bench_seed;

TEST_CASE("bench seeds are fixed by their arguments and distinct across presets, M and layers",
          "[bench]") {
  // Values from an independent implementation of the documented mix (FNV-1a of the name, then
  // SplitMix64's finalizer over base, name and (m, layer)), so they hold on any build.
  CHECK(bench_seed(1, "deepseek-v3", 0, 0) == 0x4dc5c143c49cc7fcull);
  CHECK(bench_seed(1, "deepseek-v3", 4, 1) == 0xfa744f7ac6cd69c9ull);
  CHECK(bench_seed(61, "qwen3-next", 16, 12) == 0x143c15bd3696a1cbull);
  std::set<std::uint64_t> seen;
  int count = 0;
  for (std::uint64_t base : {1ull, 2ull})
    for (const char* model : {"deepseek-v3", "qwen3-next", "glm-4.5", "llama4-maverick"})
      for (int m : {0, 1, 2, 4, 8, 16})
        for (int layer = 0; layer < 32; ++layer) {
          seen.insert(bench_seed(base, model, m, layer));
          ++count;
        }
  CHECK(seen.size() == static_cast<std::size_t>(count));
}

TEST_CASE("the bench's JSON and table name the seed", "[bench]") {
  moegemv::harness::BenchResult r;
  r.device = "test";
  CHECK_THAT(moegemv::harness::to_table(r), Catch::Contains("seed: fresh"));
  CHECK_THAT(moegemv::harness::to_json(r), Catch::Contains("\"seed\": 0"));
  r.seed = 7;
  CHECK_THAT(moegemv::harness::to_table(r), Catch::Contains("seed: 7"));
  CHECK_THAT(moegemv::harness::to_json(r), Catch::Contains("\"seed\": 7"));
}

TEST_CASE("the bench's JSON carries each row's batches in run order", "[bench]") {
  moegemv::harness::BenchResult r;
  moegemv::harness::BenchRow row;
  row.model = "deepseek-v3";
  row.m = 16;
  row.mode = "pair_pdl";
  row.us = 986.5;
  row.batch_us = {1180.25, 986.5, 979.75};
  r.rows.push_back(row);
  const auto j = nlohmann::json::parse(moegemv::harness::to_json(r));
  REQUIRE(j["rows"].size() == 1);
  CHECK(j["rows"][0]["batch_us"] == nlohmann::json({1180.25, 986.5, 979.75}));
  CHECK(j["rows"][0]["us"] == 986.5);
}
