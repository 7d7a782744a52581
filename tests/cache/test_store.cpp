// CubinStore lookup order (bundles -> disk -> compile), stale bundles, and strict mode.
#include <cstring>

#include <catch2/catch.hpp>
#include <spdlog/sinks/ostream_sink.h>

#include <sstream>

#include "cache/bundle.hpp"
#include "moegemv/errors.hpp"
#include "tests/cache/helpers.hpp"

using namespace moegemv;
using namespace moegemv::cache;
using namespace moegemv::cache::test;

namespace {

std::string write_bundle(const std::string& path, const std::vector<EntrySpec>& specs,
                         std::uint8_t tag = 0) {
  BundleWriter writer;
  for (const auto& spec : specs) {
    auto cubin = fake_cubin(spec);
    cubin.push_back(tag);  // tells bundles apart in the lookup-order test
    writer.add(spec, cubin);
  }
  writer.write(path);
  return path;
}

}  // namespace

TEST_CASE("lookup order: bundles in order, then disk, then compile", "[cache][bundle]") {
  LogCapture logs;
  TempDir dir;
  const EntrySpec spec = make_spec();
  const EntrySpec only_on_disk = make_spec(1);
  CountingCompiler compiler;
  {
    CubinStore filler(options_for(dir / "cache"));
    filler.get(spec, compiler.fn(spec));
    filler.get(only_on_disk, compiler.fn(only_on_disk));
  }
  Options options = options_for(dir / "cache");
  options.bundles = {write_bundle(dir / "first.bundle", {spec}, 1)};
  CubinStore store(options);
  store.add_bundle(write_bundle(dir / "second.bundle", {spec}, 2));

  Cubin cubin = store.get(spec, compiler.fn(spec));
  CHECK(cubin.origin == Origin::kBundle);
  CHECK(std::string(origin_name(cubin.origin)) == "bundle");
  CHECK(cubin.bytes.back() == 1);  // options.bundles first
  CHECK(store.get(only_on_disk, compiler.fn(only_on_disk)).origin == Origin::kDisk);
  const EntrySpec fresh = make_spec(2);
  CHECK(store.get(fresh, compiler.fn(fresh)).origin == Origin::kCompiled);
  CHECK(compiler.calls == 3);
  CHECK(logs.warnings() == 0);

  CHECK_THROWS_AS(store.add_bundle(dir / "missing.bundle"), CacheError);
  Options bad = options_for(dir / "cache");
  bad.bundles = {dir / "missing.bundle"};
  CHECK_THROWS_AS(CubinStore(bad), CacheError);
}

TEST_CASE("stale bundle entries are skipped with one warning per bundle", "[cache][bundle]") {
  LogCapture logs;
  TempDir dir;
  EntrySpec old_a = make_spec(0), old_b = make_spec(1);
  old_a.template_hash = old_b.template_hash = "aaaaaaaaaaaaaaaa";
  // Built from other source by another NVRTC: the NVRTC alone would not have made it stale.
  EntrySpec old_source = make_spec(0);
  old_source.source += "// other codegen\n";
  old_source.nvrtc_version = "12.8";
  Options options = options_for(dir / "cache");
  options.bundles = {write_bundle(dir / "templates.bundle", {old_a, old_b}),
                     write_bundle(dir / "source.bundle", {old_source})};
  CubinStore store(options);

  CountingCompiler compiler;
  for (int round = 0; round < 2; ++round) {
    for (int v = 0; v < 2; ++v) {
      const EntrySpec spec = make_spec(v);
      CHECK(store.get(spec, compiler.fn(spec)).origin != Origin::kBundle);
    }
  }
  CHECK(compiler.calls == 2);
  INFO(logs.dump());
  CHECK(logs.warnings() == 2);
  CHECK(logs.warnings("templates.bundle") == 1);
  CHECK(logs.warnings("template hash aaaaaaaaaaaaaaaa") == 1);
  CHECK(logs.warnings("source.bundle") == 1);
  CHECK(logs.warnings("generated source or compile options differ") == 1);
}

TEST_CASE("a bundle serves processes with another NVRTC or none, this NVRTC's entry first",
          "[cache][bundle]") {
  LogCapture logs;
  TempDir dir;
  const EntrySpec spec = make_spec();  // this process: NVRTC 13.0
  EntrySpec built_by_12 = spec;
  built_by_12.nvrtc_version = "12.8";
  REQUIRE(built_by_12.content_hash() != spec.content_hash());
  CountingCompiler compiler;

  SECTION("another NVRTC's entry serves, and a process without NVRTC takes it too") {
    Options options = options_for(dir / "cache");
    options.bundles = {write_bundle(dir / "old.bundle", {built_by_12}, 1)};
    CubinStore store(options);
    const Cubin cubin = store.get(spec, compiler.fn(spec));
    CHECK(cubin.origin == Origin::kBundle);
    CHECK(cubin.entry_hash == built_by_12.content_hash());
    CHECK(cubin.built_by == "12.8");
    CHECK(cubin.bytes.back() == 1);
    EntrySpec no_nvrtc = spec;
    no_nvrtc.nvrtc_version = "none";
    CHECK(store.get(no_nvrtc, compiler.fn(no_nvrtc)).origin == Origin::kBundle);
    CHECK(compiler.calls == 0);
    CHECK(logs.warnings() == 0);

    // One the driver rejected is passed over: the next get compiles.
    store.discard(spec, cubin, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION");
    CHECK(store.get(spec, compiler.fn(spec)).origin == Origin::kCompiled);
    CHECK(compiler.calls == 1);
  }
  SECTION("with both in one bundle, this NVRTC's build is served, then the other") {
    BundleWriter writer;
    auto mine = fake_cubin(spec), theirs = fake_cubin(built_by_12);
    writer.add(built_by_12, theirs);
    writer.add(spec, mine);
    writer.write(dir / "both.bundle");
    Options options = options_for(dir / "cache");
    options.bundles = {dir / "both.bundle"};
    CubinStore store(options);
    const Cubin first = store.get(spec, compiler.fn(spec));
    CHECK(first.bytes == mine);
    CHECK(first.entry_hash == spec.content_hash());
    store.discard(spec, first, "CUDA_ERROR_INVALID_IMAGE");
    const Cubin second = store.get(spec, compiler.fn(spec));
    CHECK(second.origin == Origin::kBundle);
    CHECK(second.bytes == theirs);
    CHECK(compiler.calls == 0);
  }
  SECTION("another NVRTC's entry yields to this NVRTC's in a later bundle, and to the disk") {
    Options options = options_for(dir / "cache");
    options.bundles = {write_bundle(dir / "old.bundle", {built_by_12}, 1),
                       write_bundle(dir / "new.bundle", {spec}, 2)};
    CubinStore both(options);
    const Cubin exact = both.get(spec, compiler.fn(spec));
    CHECK(exact.bytes.back() == 2);
    CHECK(exact.built_by == "13.0");
    {
      CubinStore filler(options_for(dir / "cache"));
      filler.get(spec, compiler.fn(spec));  // compiles once, onto the disk
    }
    options.bundles = {dir / "old.bundle"};
    CubinStore old_only(options);
    CHECK(old_only.get(spec, compiler.fn(spec)).origin == Origin::kDisk);
    CHECK(compiler.calls == 1);
  }
  SECTION("an entry whose manifest names another key or arch never serves") {
    for (auto edit : {+[](EntrySpec& s) { s.arch = "sm_100a"; },
                      +[](EntrySpec& s) { s.template_hash = "fedcba9876543210"; }}) {
      EntrySpec other = built_by_12;
      edit(other);
      BundleEntry entry{spec.key.str(), spec.arch, other.nvrtc_version, spec.template_hash,
                        other.content_hash()};
      CHECK_FALSE(serves(entry, spec));
    }
    BundleEntry honest{spec.key.str(), spec.arch, built_by_12.nvrtc_version, spec.template_hash,
                       built_by_12.content_hash()};
    CHECK(serves(honest, spec));
    honest.key = make_spec(1).key.str();
    CHECK_FALSE(serves(honest, spec));
  }
}

TEST_CASE("a bundle of another format version is skipped with a warning", "[cache][bundle]") {
  LogCapture logs;
  TempDir dir;
  const EntrySpec spec = make_spec();
  BundleWriter writer;
  writer.add(spec, fake_cubin(spec));
  auto bytes = writer.serialize();
  // Rewrite it as format v2 (header and manifest), as a future build would.
  bytes[8] = 2;
  std::string text(bytes.begin(), bytes.end());
  auto at = text.find("\"format_version\":1");
  REQUIRE(at != std::string::npos);
  bytes[at + std::strlen("\"format_version\":")] = '2';
  write_bytes(dir / "v2.bundle", bytes);

  Options options = options_for(dir / "cache");
  options.bundles = {dir / "v2.bundle"};
  CubinStore store(options);
  CountingCompiler compiler;
  CHECK(store.get(spec, compiler.fn(spec)).origin == Origin::kCompiled);
  INFO(logs.dump());
  CHECK(logs.warnings("bundle format v2") == 1);
}

TEST_CASE("a damaged bundle entry falls through to disk and compile", "[cache][bundle]") {
  LogCapture logs;
  TempDir dir;
  const EntrySpec spec = make_spec();
  auto path = write_bundle(dir / "b.bundle", {spec});
  auto bytes = read_bytes(path);
  bytes[bytes.size() - 5] ^= 0xff;
  write_bytes(path, bytes);
  Options options = options_for(dir / "cache");
  options.bundles = {path};
  CubinStore store(options);
  CountingCompiler compiler;
  CHECK(store.get(spec, compiler.fn(spec)).origin == Origin::kCompiled);
  CHECK(logs.warnings("damaged") == 1);
}

TEST_CASE("strict mode: a miss names the key and the prewarm command", "[cache]") {
  LogCapture logs;
  TempDir dir;
  const EntrySpec spec = make_spec();
  CountingCompiler compiler;
  Options options = options_for(dir / "cache");
  options.disable_jit = true;
  CubinStore strict(options);
  const std::string prewarm = "moegemv prewarm --key " + spec.key.str() + " --arch sm_90";

  try {
    strict.get(spec, compiler.fn(spec));
    FAIL("no JitDisabledError");
  } catch (const JitDisabledError& e) {
    CHECK(e.key == spec.key.str());
    CHECK(e.arch == "sm_90");
    CHECK(e.reason == "in no bundle or cache, and compiling is not allowed: MOEGEMV_DISABLE_JIT=1");
    CHECK_THAT(e.fix, Catch::Contains(prewarm));
    CHECK_THAT(e.fix, Catch::Contains("moegemv bundle create -o FILE --key " + spec.key.str() +
                                      " --arch sm_90"));
    CHECK_THAT(e.fix, Catch::Contains("MOEGEMV_BUNDLE=FILE"));
    CHECK_THAT(e.what(), Catch::Contains(spec.key.str()) && Catch::Contains(prewarm));
  }
  CHECK(compiler.calls == 0);

  SECTION("graph capture (allow_compile = false) is the same error with its own reason") {
    CubinStore lenient(options_for(dir / "cache"));
    try {
      lenient.get(spec, compiler.fn(spec), /*allow_compile=*/false);
      FAIL("no JitDisabledError");
    } catch (const JitDisabledError& e) {
      CHECK(e.reason ==
            "in no bundle or cache, and compiling is not allowed: the stream is being captured "
            "into a CUDA graph");
      CHECK_THAT(e.fix, Catch::Contains(prewarm));
    }
    CHECK(compiler.calls == 0);
  }
  SECTION("a disk entry or a bundle entry satisfies strict mode") {
    CubinStore(options_for(dir / "cache")).get(spec, compiler.fn(spec));
    CHECK(strict.get(spec, compiler.fn(spec)).origin == Origin::kDisk);
    const EntrySpec other = make_spec(1);
    strict.add_bundle(write_bundle(dir / "b.bundle", {other}));
    CHECK(strict.get(other, compiler.fn(other)).origin == Origin::kBundle);
    CHECK(compiler.calls == 1);
  }
}

TEST_CASE("the library logs through its own logger, never spdlog's default one", "[cache]") {
  // spdlog's default logger and global level belong to the application (engines use spdlog too);
  // moegemv logged through it and set its level on first use.
  std::ostringstream seen_by_default;
  auto previous = spdlog::default_logger();
  auto capture_default = std::make_shared<spdlog::logger>(
      "app", std::make_shared<spdlog::sinks::ostream_sink_mt>(seen_by_default));
  capture_default->set_level(spdlog::level::trace);
  spdlog::set_default_logger(capture_default);
  {
    LogCapture logs;  // moegemv's own logger
    TempDir dir;
    const EntrySpec spec = make_spec();
    CountingCompiler compiler;
    CubinStore store(options_for(dir.path()));
    store.get(spec, compiler.fn(spec));
    CHECK(logs.count(spdlog::level::info, "compiling") == 1);
  }
  CHECK(seen_by_default.str().empty());
  CHECK(spdlog::default_logger()->level() == spdlog::level::trace);
  spdlog::set_default_logger(previous);
}
