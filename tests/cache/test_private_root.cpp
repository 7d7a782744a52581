// The cache root taken when no directory is configured (/tmp/moegemv-cache-<euid>): anyone can
// create a path in /tmp first, so it is used only if it is this user's alone.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "cache/disk_cache.hpp"
#include "tests/cache/helpers.hpp"

using namespace moegemv;
using namespace moegemv::cache;
using namespace moegemv::cache::test;

namespace {
Options private_options(const std::string& dir) {
  Options options = options_for(dir);
  options.cache_dir_private = true;
  return options;
}

// A fallback root to be under a scratch directory, one spec, a counting compiler, the logs.
struct Fallback {
  LogCapture logs;
  TempDir dir;
  const std::string root = dir / "fallback";
  const EntrySpec spec = make_spec();
  CountingCompiler compiler;
};
}  // namespace

TEST_CASE("the /tmp fallback root is created private and used", "[cache]") {
  Fallback f;
  auto& [logs, dir, root, spec, compiler] = f;
  CubinStore store(private_options(root));
  CHECK(store.writable());
  struct stat st {};
  REQUIRE(::stat(root.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
  CHECK(store.get(spec, compiler.fn(spec)).saved);
  CHECK(store.get(spec, compiler.fn(spec)).origin == Origin::kDisk);
  CHECK(logs.warnings() == 0);
}

TEST_CASE("a /tmp fallback root that others can write to is not used, not even read", "[cache]") {
  Fallback f;
  auto& [logs, dir, root, spec, compiler] = f;
  {  // what another user could have prepared: the directory, world-writable, with an entry in it
    CubinStore planted(options_for(root));
    REQUIRE(planted.get(spec, compiler.fn(spec)).saved);
  }
  REQUIRE(::chmod(root.c_str(), 0777) == 0);
  CubinStore store(private_options(root));
  CHECK_FALSE(store.writable());
  CHECK(store.root().empty());
  const Cubin cubin = store.get(spec, compiler.fn(spec));
  CHECK(cubin.origin == Origin::kCompiled);  // the planted entry was not read
  CHECK_FALSE(cubin.saved);
  CHECK(compiler.calls == 2);
  INFO(logs.dump());
  CHECK(logs.warnings("writable by other users") == 1);
  CHECK(logs.warnings("MOEGEMV_CACHE_DIR") == 1);
  CHECK(logs.warnings() == 1);
}

TEST_CASE("a /tmp fallback root owned by another user, or not a directory, is not used",
          "[cache]") {
  LogCapture logs;
  TempDir dir;
  const std::string root = dir / "fallback";
  std::string why;
  SECTION("a link to a directory") {
    REQUIRE(::mkdir((dir / "elsewhere").c_str(), 0700) == 0);
    REQUIRE(::symlink((dir / "elsewhere").c_str(), root.c_str()) == 0);
    why = "not a directory";
  }
  SECTION("owned by another user") {
    if (::geteuid() != 0) {
      WARN("not root: cannot make a directory owned by another user; case skipped");
      return;
    }
    REQUIRE(::mkdir(root.c_str(), 0700) == 0);
    REQUIRE(::chown(root.c_str(), 12345, 12345) == 0);
    why = "owned by uid 12345";
  }
  CubinStore store(private_options(root));
  CHECK_FALSE(store.writable());
  INFO(logs.dump());
  CHECK(logs.warnings(why) == 1);
}
