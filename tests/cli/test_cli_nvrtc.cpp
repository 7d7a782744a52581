// NVRTC is opened at run time: a process without it is served by bundles, says what is missing
// when it must compile, and a bundle built by another NVRTC serves this one.
#include <catch2/catch.hpp>

#include "cache/bundle.hpp"
#include "runtime/registry.hpp"
#include "tests/cli/cli_helpers.hpp"

using namespace moegemv::cli_test;
using moegemv::Key;

namespace {

const std::map<std::string, std::string> kNoNvrtc = {
    {"MOEGEMV_NVRTC_LIBRARY", "/nonexistent/libnvrtc.so.13"}};

std::string make_bundle(const TempDir& dir) {
  const std::string bundle = dir / "kernels.moegemv";
  const Result create =
      run_cli({"bundle", "create", "-o", bundle, "--key", kSmallKey, "--arch", "sm_90"}, dir);
  INFO(create.err);
  REQUIRE(create.status == 0);
  return bundle;
}

}  // namespace

TEST_CASE("without NVRTC a bundle serves, and a compile names what is missing", "[cli]") {
  TempDir dir;
  const std::string bundle = make_bundle(dir);

  TempDir cold;
  auto with_bundle = kNoNvrtc;
  with_bundle["MOEGEMV_BUNDLE"] = bundle;
  const Result served =
      run_cli({"prewarm", "--key", kSmallKey, "--arch", "sm_90", "--json"}, cold, with_bundle);
  INFO(served.err);
  CHECK(served.status == 0);
  const auto counts = parse_json(served);
  CHECK(counts["bundle_hits"] == 1);
  CHECK(counts["compiled"] == 0);
  CHECK(run_cli({"bundle", "verify", bundle}, cold, kNoNvrtc).status == 0);

  const Result compile = run_cli({"prewarm", "--key", kSmallKey, "--arch", "sm_90"}, cold, kNoNvrtc);
  CHECK(compile.status == 1);
  CHECK_THAT(compile.err, Contains(kSmallKey) && Contains("NVRTC, which could not be loaded") &&
                              Contains("/nonexistent/libnvrtc.so.13") &&
                              Contains("MOEGEMV_NVRTC_LIBRARY"));

  const Result info = run_cli({"info"}, cold, kNoNvrtc);
  CHECK(info.status == 0);
  CHECK_THAT(info.out, Contains("NVRTC          none") && Contains("/nonexistent/libnvrtc.so.13"));
  const Result prune = run_cli({"cache", "prune"}, cold, kNoNvrtc);
  CHECK(prune.status != 0);
  CHECK_THAT(prune.err, Contains("NVRTC could not be loaded") && Contains("nothing removed"));

  // The library named is the only one tried: a wrong file is an error, not a silent fallback.
  const Result not_nvrtc = run_cli({"prewarm", "--key", kSmallKey, "--arch", "sm_90"}, cold,
                                   {{"MOEGEMV_NVRTC_LIBRARY", "libm.so.6"}});
  CHECK(not_nvrtc.status == 1);
  CHECK_THAT(not_nvrtc.err, Contains("libm.so.6: lacks nvrtcVersion"));
}

TEST_CASE("a bundle entry built by another NVRTC serves this one", "[cli]") {
  TempDir dir;
  const std::string built_here = make_bundle(dir);
  const auto original = moegemv::cache::Bundle::open(built_here);
  REQUIRE(original.entries().size() == 1);
  const auto cubin = original.find(original.entries()[0].content_hash);
  REQUIRE(cubin.has_value());

  // The same source and options as this build generates, recorded as built by NVRTC 12.8.
  moegemv::cache::EntrySpec spec = moegemv::detail::make_spec(Key::parse(kSmallKey), "sm_90");
  spec.nvrtc_version = "12.8";
  moegemv::cache::BundleWriter writer;
  writer.add(spec, *cubin);
  const std::string other = dir / "other-nvrtc.moegemv";
  writer.write(other);

  const auto listed = parse_json(run_cli({"bundle", "list", other, "--json"}, dir));
  REQUIRE(listed["entries"].size() == 1);
  CHECK(listed["entries"][0]["nvrtc"] == "12.8");
  CHECK(listed["entries"][0]["usable"] == true);
  CHECK(run_cli({"bundle", "verify", other}, dir).status == 0);

  TempDir cold;
  const auto served = parse_json(run_cli({"prewarm", "--key", kSmallKey, "--arch", "sm_90", "--json"},
                                         cold, {{"MOEGEMV_BUNDLE", other}}));
  CHECK(served["bundle_hits"] == 1);
  CHECK(served["compiled"] == 0);

  // Another source under the same NVRTC label is still refused.
  spec.source += "// edited\n";
  moegemv::cache::BundleWriter edited;
  edited.add(spec, *cubin);
  const std::string stale = dir / "stale.moegemv";
  edited.write(stale);
  const auto refused = parse_json(run_cli({"bundle", "list", stale, "--json"}, dir));
  CHECK(refused["entries"][0]["usable"] == false);
}
