// Disk cache in one process: hit/miss, logging, corrupt entries, unwritable roots, housekeeping.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "cache/disk_cache.hpp"
#include "moegemv/errors.hpp"
#include "tests/cache/helpers.hpp"

using namespace moegemv;
using namespace moegemv::cache;
using namespace moegemv::cache::test;

namespace {
std::string entry_file(const CubinStore& store, const EntrySpec& spec) {
  return DiskCache(store.root()).entry_path(spec.content_hash());
}
}  // namespace

TEST_CASE("cold cache: miss compiles and publishes, then hits", "[cache]") {
  LogCapture logs;
  TempDir dir;
  const EntrySpec spec = make_spec();
  CountingCompiler compiler;
  CubinStore store(options_for(dir.path()));
  CHECK(store.root() == dir.path() + "/v" + std::to_string(kFormatVersion));
  CHECK(store.writable());

  Cubin first = store.get(spec, compiler.fn(spec));
  CHECK(first.origin == Origin::kCompiled);
  CHECK(first.saved);
  CHECK(first.bytes == fake_cubin(spec));
  CHECK(compiler.calls == 1);
  CHECK(logs.count(spdlog::level::info, "compiling " + spec.key.str() + " for sm_90") == 1);
  CHECK(logs.count(spdlog::level::info, "compiled " + spec.key.str() + " for sm_90 in") == 1);
  CHECK(logs.count(spdlog::level::info, std::to_string(first.bytes.size()) + " bytes") == 1);

  Cubin second = store.get(spec, compiler.fn(spec));
  CHECK(second.origin == Origin::kDisk);
  CHECK(second.saved);
  CHECK(std::string(origin_name(second.origin)) == "cache");
  CHECK(second.bytes == first.bytes);
  CHECK(logs.count(spdlog::level::debug, "from cache") == 1);

  CubinStore other(options_for(dir.path()));  // another process would see the same
  CHECK(other.get(spec, compiler.fn(spec)).origin == Origin::kDisk);
  CHECK(compiler.calls == 1);
  CHECK(logs.warnings() == 0);

  // Different spec, different entry.
  const EntrySpec spec2 = make_spec(1);
  CHECK(store.get(spec2, compiler.fn(spec2)).origin == Origin::kCompiled);
  CHECK(compiler.calls == 2);

  auto entries = store.list();
  REQUIRE(entries.size() == 2);
  for (const auto& entry : entries) {
    CHECK(entry.arch == "sm_90");
    CHECK(entry.path == DiskCache(store.root()).entry_path(entry.content_hash));
    CHECK((entry.key == spec.key.str() || entry.key == spec2.key.str()));
  }
  CHECK(store.clear() == 2);
  CHECK(store.list().empty());
  CHECK(store.get(spec, compiler.fn(spec)).origin == Origin::kCompiled);
  CHECK(compiler.calls == 3);
}

TEST_CASE("corrupt entries are rebuilt and logged, never a crash", "[cache]") {
  LogCapture logs;
  TempDir dir;
  const EntrySpec spec = make_spec();
  CountingCompiler compiler;
  CubinStore store(options_for(dir.path()));
  store.get(spec, compiler.fn(spec));
  const std::string path = entry_file(store, spec);
  auto good = read_bytes(path);
  REQUIRE(good.size() > fake_cubin(spec).size());

  std::string expected_reason;
  SECTION("truncated") {
    good.resize(good.size() / 2);
    expected_reason = "truncated";
  }
  SECTION("truncated inside the header") {
    good.resize(20);
    expected_reason = "truncated";
  }
  SECTION("empty file") {
    good.clear();
    expected_reason = "bad magic";
  }
  SECTION("flipped byte in the cubin") {
    good[good.size() - 100] ^= 0x40;
    expected_reason = "checksum";
  }
  SECTION("bad magic") {
    good[0] = 'X';
    expected_reason = "bad magic";
  }
  SECTION("trailing garbage") {
    good.push_back(0);
    expected_reason = "unexpected bytes";
  }
  SECTION("another spec's entry under this name") {
    EntrySpec other = spec;
    other.nvrtc_version = "12.9";
    TempDir other_dir;
    CubinStore other_store(options_for(other_dir.path()));
    other_store.get(other, compiler.fn(other));
    good = read_bytes(entry_file(other_store, other));
    expected_reason = "content hash";
  }
  write_bytes(path, good);
  const int calls_before = compiler.calls;

  Cubin rebuilt = store.get(spec, compiler.fn(spec));
  CHECK(rebuilt.origin == Origin::kCompiled);
  CHECK(rebuilt.bytes == fake_cubin(spec));
  CHECK(compiler.calls == calls_before + 1);
  INFO(logs.dump());
  CHECK(logs.warnings("is invalid") == 1);
  CHECK(logs.warnings(path) == 1);
  CHECK(logs.warnings(expected_reason) == 1);

  // Replaced by a valid entry.
  Cubin again = store.get(spec, compiler.fn(spec));
  CHECK(again.origin == Origin::kDisk);
  CHECK(again.bytes == fake_cubin(spec));
  CHECK(compiler.calls == calls_before + 1);
}

TEST_CASE("an unwritable cache root means memory-only with one warning", "[cache]") {
  LogCapture logs;
  TempDir dir;
  std::string cache_dir;
  SECTION("root below a regular file (mkdir fails, even for root)") {
    write_bytes(dir / "file", {1, 2, 3});
    cache_dir = dir / "file/cache";
  }
  SECTION("read-only directory (chmod 0555)") {
    if (::geteuid() == 0) {
      WARN("running as root, which ignores permissions: chmod 0555 case skipped");
      return;
    }
    REQUIRE(::mkdir((dir / "ro").c_str(), 0755) == 0);
    REQUIRE(::mkdir((dir / "ro/v1").c_str(), 0755) == 0);
    REQUIRE(::chmod((dir / "ro/v1").c_str(), 0555) == 0);
    cache_dir = dir / "ro";
  }
  const EntrySpec spec = make_spec();
  CountingCompiler compiler;
  {
    CubinStore store(options_for(cache_dir));
    CHECK_FALSE(store.writable());
    const Cubin cubin = store.get(spec, compiler.fn(spec));
    CHECK(cubin.origin == Origin::kCompiled);
    CHECK_FALSE(cubin.saved);  // what `moegemv prewarm` reports as an error
    CHECK(store.get(spec, compiler.fn(spec)).origin == Origin::kCompiled);
    CHECK(compiler.calls == 2);
    CHECK(store.list().empty());
  }
  CubinStore second(options_for(cache_dir));
  CHECK(second.get(spec, compiler.fn(spec)).bytes == fake_cubin(spec));
  CHECK(compiler.calls == 3);
  INFO(logs.dump());
  CHECK(logs.warnings("not writable") == 1);
  CHECK(logs.warnings() == 1);
}

TEST_CASE("no cache directory configured means memory-only", "[cache]") {
  LogCapture logs;
  const EntrySpec spec = make_spec();
  CountingCompiler compiler;
  CubinStore store(options_for(""));
  CHECK_FALSE(store.writable());
  CHECK(store.get(spec, compiler.fn(spec)).origin == Origin::kCompiled);
  CHECK(store.get(spec, compiler.fn(spec)).origin == Origin::kCompiled);
  CHECK(store.list().empty());
  CHECK(store.clear() == 0);
}

TEST_CASE("discard removes an unloadable entry so that it is rebuilt", "[cache]") {
  LogCapture logs;
  TempDir dir;
  const EntrySpec spec = make_spec();
  CountingCompiler compiler;
  CubinStore store(options_for(dir.path()));
  store.get(spec, compiler.fn(spec));
  store.discard(spec, store.get(spec, compiler.fn(spec)), "CUDA_ERROR_INVALID_IMAGE");
  CHECK(logs.warnings("CUDA_ERROR_INVALID_IMAGE") == 1);
  CHECK(::access(entry_file(store, spec).c_str(), F_OK) != 0);
  CHECK(store.get(spec, compiler.fn(spec)).origin == Origin::kCompiled);
  CHECK(compiler.calls == 2);
}

TEST_CASE("a failing compile publishes nothing and releases the lock", "[cache]") {
  LogCapture logs;
  TempDir dir;
  const EntrySpec spec = make_spec();
  CubinStore store(options_for(dir.path()));
  CHECK_THROWS_AS(store.get(spec,
                            []() -> std::vector<std::uint8_t> {
                              throw CompileError("k", "sm_90", {}, "error: boom");
                            }),
                  CompileError);
  CHECK(store.list().empty());
  CountingCompiler compiler;
  CHECK(store.get(spec, compiler.fn(spec)).origin == Origin::kCompiled);
}

TEST_CASE("clear leaves what a live process may be using: young temp and lock files", "[cache]") {
  TempDir dir;
  const EntrySpec spec = make_spec();
  CountingCompiler compiler;
  CubinStore store(options_for(dir.path()));
  REQUIRE(store.get(spec, compiler.fn(spec)).saved);
  const DiskCache disk(store.root());
  const std::string hash = spec.content_hash();
  const std::string shard = store.root() + "/" + hash.substr(0, 2);
  const std::string young_tmp = disk.entry_path(hash) + ".tmp.young",
                    old_tmp = disk.entry_path(hash) + ".tmp.old";
  const std::string old_lock = shard + "/" + std::string(32, 'a') + ".lock";
  for (const auto& path : {young_tmp, old_tmp, old_lock}) write_bytes(path, {1});
  write_bytes(disk.lock_path(hash), {1});  // a young lock
  const timespec two_hours_ago[2] = {{::time(nullptr) - 7200, 0}, {::time(nullptr) - 7200, 0}};
  for (const auto& path : {old_tmp, old_lock})
    REQUIRE(::utimensat(AT_FDCWD, path.c_str(), two_hours_ago, 0) == 0);
  CHECK(store.clear() == 1);
  CHECK(store.list().empty());
  CHECK(::access(young_tmp.c_str(), F_OK) == 0);  // maybe a publish in progress
  CHECK(::access(disk.lock_path(hash).c_str(), F_OK) == 0);
  CHECK(::access(old_tmp.c_str(), F_OK) != 0);  // left by a killed process
  CHECK(::access(old_lock.c_str(), F_OK) != 0);
  CHECK(::access(shard.c_str(), F_OK) == 0);  // shard directories stay
}

TEST_CASE("prune removes the entries its predicate calls stale, and only those", "[cache]") {
  TempDir dir;
  CountingCompiler compiler;
  CubinStore store(options_for(dir.path()));
  EntrySpec current = make_spec(), old = make_spec(1);
  old.template_hash = "fedcba9876543210";  // made from other templates
  REQUIRE(store.get(current, compiler.fn(current)).saved);
  REQUIRE(store.get(old, compiler.fn(old)).saved);
  auto by_templates = [](const DiskEntryInfo& e) { return e.template_hash != "0123456789abcdef"; };
  const auto dry = store.prune(by_templates, /*dry_run=*/true);
  REQUIRE(dry.size() == 1);
  CHECK(dry[0].key == old.key.str());
  CHECK(dry[0].nvrtc_version == "13.0");
  CHECK(store.list().size() == 2);
  CHECK(store.prune(by_templates, /*dry_run=*/false).size() == 1);
  const auto left = store.list();
  REQUIRE(left.size() == 1);
  CHECK(left[0].key == current.key.str());
  CHECK(store.get(current, compiler.fn(current)).origin == Origin::kDisk);
}
