// The bundle format: round trip, damage detection, and the golden bytes of format v1.
#include <cstdlib>
#include <cstring>

#include <catch2/catch.hpp>

#include "cache/bundle.hpp"
#include "cache/entry_format.hpp"
#include "moegemv/errors.hpp"
#include "tests/cache/helpers.hpp"

using namespace moegemv;
using namespace moegemv::cache;
using namespace moegemv::cache::test;

namespace {

std::vector<EntrySpec> three_specs() {
  EntrySpec down = make_spec(2);
  down.key.kind = Kind::kDownCombine;
  down.arch = "sm_100a";
  return {make_spec(0), make_spec(1), down};
}

// Compares `bytes` with the committed golden file; MOEGEMV_UPDATE_GOLDEN=1 (re)writes it.
void check_golden(const std::string& name, const std::vector<std::uint8_t>& bytes) {
  const std::string path = std::string(MOEGEMV_SOURCE_DIR) + "/tests/cache/golden/" + name;
  const char* update = std::getenv("MOEGEMV_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    write_bytes(path, bytes);
    WARN("wrote golden file " << path);
  }
  INFO("golden file " << path
                      << ": if the format changed on purpose, bump kFormatVersion and run with "
                         "MOEGEMV_UPDATE_GOLDEN=1 to write the new golden file");
  const auto golden = read_bytes(path);
  REQUIRE_FALSE(golden.empty());
  CHECK(golden.size() == bytes.size());
  CHECK(golden == bytes);
}

// A tiny fixed entry: every byte of it is part of the golden files.
EntrySpec golden_spec() {
  EntrySpec spec;
  spec.key = Key{Kind::kGateUp, 64, 128, 0, 2};
  spec.arch = "sm_90";
  spec.source = "golden";
  spec.options = {"-arch=sm_90"};
  spec.nvrtc_version = "13.0";
  spec.template_hash = "0000000000000000";
  return spec;
}
const std::vector<std::uint8_t> kGoldenCubin = {0x7f, 'E', 'L', 'F', 1, 2, 3, 4, 5, 6, 7, 8};

}  // namespace

TEST_CASE("bundle round trip", "[bundle]") {
  LogCapture logs;
  TempDir dir;
  const auto specs = three_specs();
  BundleWriter writer;
  for (const auto& spec : specs) writer.add(spec, fake_cubin(spec));
  writer.add(specs[0], fake_cubin(specs[0]));  // same content hash: replaced, not duplicated
  CHECK(writer.size() == 3);
  writer.write(dir / "b.moegemv");

  // The bytes depend on the set of entries, not on the order they were added in.
  BundleWriter reversed;
  for (auto it = specs.rbegin(); it != specs.rend(); ++it) reversed.add(*it, fake_cubin(*it));
  CHECK(reversed.serialize() == read_bytes(dir / "b.moegemv"));

  Bundle bundle = Bundle::open(dir / "b.moegemv");
  CHECK(bundle.path() == dir / "b.moegemv");
  CHECK(bundle.format_version() == std::uint32_t(kFormatVersion));
  REQUIRE(bundle.entries().size() == 3);
  for (const auto& spec : specs) {
    auto cubin = bundle.find(spec);
    REQUIRE(cubin.has_value());
    CHECK(*cubin == fake_cubin(spec));
    auto it =
        std::find_if(bundle.entries().begin(), bundle.entries().end(),
                     [&](const BundleEntry& e) { return e.content_hash == spec.content_hash(); });
    REQUIRE(it != bundle.entries().end());
    CHECK(it->key == spec.key.str());
    CHECK(it->arch == spec.arch);
    CHECK(it->nvrtc_version == spec.nvrtc_version);
    CHECK(it->template_hash == spec.template_hash);
    CHECK(it->size == fake_cubin(spec).size());
  }
  CHECK_FALSE(bundle.find(make_spec(7)).has_value());
  VerifyReport report = bundle.verify();
  CHECK(report.ok());
  CHECK(report.checked == 3);
  CHECK(logs.warnings() == 0);
}

TEST_CASE("damaged bundles are detected", "[bundle]") {
  LogCapture logs;
  TempDir dir;
  const auto specs = three_specs();
  BundleWriter writer;
  for (const auto& spec : specs) writer.add(spec, fake_cubin(spec));
  const auto good = writer.serialize();
  const std::string path = dir / "b.moegemv";

  SECTION("a flipped cubin byte fails verify and find, not open") {
    auto bad = good;
    bad[bad.size() - 1] ^= 1;  // inside the last entry's cubin
    write_bytes(path, bad);
    Bundle bundle = Bundle::open(path);
    VerifyReport report = bundle.verify();
    CHECK(report.checked == 3);
    REQUIRE(report.failures.size() == 1);
    CHECK_THAT(report.failures[0], Catch::Contains("checksum"));
    int found = 0;
    for (const auto& spec : specs) found += bundle.find(spec).has_value();
    CHECK(found == 2);
    CHECK(logs.warnings("damaged") == 1);
  }
  auto expect_open_error = [&](const std::vector<std::uint8_t>& bytes, const std::string& what) {
    write_bytes(path, bytes);
    try {
      Bundle::open(path);
      FAIL("opened a damaged bundle");
    } catch (const CacheError& e) {
      CHECK(e.path == path);
      CHECK_THAT(e.what(), Catch::Contains(what));
    }
  };
  SECTION("bad magic") {
    auto bad = good;
    bad[3] = 'x';
    expect_open_error(bad, "bad magic");
  }
  SECTION("truncated cubins") { expect_open_error({good.begin(), good.end() - 10}, "truncated"); }
  SECTION("truncated manifest") {
    expect_open_error({good.begin(), good.begin() + 40}, "truncated");
  }
  SECTION("truncated header") {
    expect_open_error({good.begin(), good.begin() + 10}, "truncated header");
  }
  SECTION("garbage manifest") {
    auto bad = good;
    bad[30] = '#';
    expect_open_error(bad, "corrupt manifest");
  }
  SECTION("entry count disagrees with the manifest") {
    auto bad = good;
    bad[12] = 7;
    expect_open_error(bad, "header says 7 entries");
  }
  SECTION("missing file") { CHECK_THROWS_AS(Bundle::open(dir / "none"), CacheError); }
}

TEST_CASE("bundle format v1 golden bytes", "[bundle]") {
  REQUIRE(kFormatVersion == 1);
  BundleWriter writer;
  writer.add(golden_spec(), kGoldenCubin);
  const auto bytes = writer.serialize();
  check_golden("bundle_v" + std::to_string(kFormatVersion) + ".bin", bytes);

  // And this build reads the committed file.
  Bundle bundle = Bundle::open(std::string(MOEGEMV_SOURCE_DIR) + "/tests/cache/golden/bundle_v" +
                               std::to_string(kFormatVersion) + ".bin");
  REQUIRE(bundle.entries().size() == 1);
  CHECK(bundle.find(golden_spec()) == kGoldenCubin);
}

TEST_CASE("cache entry format v1 golden bytes", "[cache]") {
  REQUIRE(kFormatVersion == 1);
  const EntrySpec spec = golden_spec();
  const auto bytes = encode_entry(spec, spec.content_hash(), kGoldenCubin);
  check_golden("entry_v" + std::to_string(kFormatVersion) + ".bin", bytes);
  std::string error;
  CHECK(decode_entry(bytes, spec, spec.content_hash(), &error) == kGoldenCubin);
}
