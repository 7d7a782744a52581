// `cmake --install` of this build, used as a C program and a C++ CMake project would. The tree is
// installed into one temporary prefix and then moved, so everything below also checks that the
// package finds itself wherever it lies.
#include <dlfcn.h>

#include "process.hpp"

namespace moegemv::package_test {
namespace {

using Catch::Matchers::Contains;

struct Installed {
  TempDir root;
  fs::path stage;   // where cmake --install put it
  fs::path prefix;  // where it is now
};

const Installed& installed() {
  static Installed tree;
  if (tree.prefix.empty()) {
    const fs::path stage = tree.root.path() / "stage";
    run_ok({MOEGEMV_CMAKE, "--install", MOEGEMV_BINARY_DIR, "--prefix", stage.string()},
           tree.root.path());
    tree.stage = stage;
    tree.prefix = tree.root.path() / "moved";
    fs::rename(stage, tree.prefix);
  }
  return tree;
}

// Children get their own cache directory: the tests must not touch the user's.
std::map<std::string, std::string> child_env(const TempDir& scratch) {
  return {{"MOEGEMV_CACHE_DIR", (scratch.path() / "cache").string()}};
}

bool libcuda_loads() {
  void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle != nullptr) dlclose(handle);
  return handle != nullptr;
}

TEST_CASE("install: the tree is complete and names no path of this build", "[package]") {
  const Installed& tree = installed();
  const fs::path lib = tree.prefix / MOEGEMV_INSTALL_LIBDIR;
  for (const auto& header :
       fs::directory_iterator(fs::path(MOEGEMV_SOURCE_DIR) / "include/moegemv")) {
    INFO("public header not installed: " << header.path().filename());
    CHECK(fs::is_regular_file(tree.prefix / "include/moegemv" / header.path().filename()));
  }
  // The development link, the SONAME link, the versioned file.
  CHECK(fs::read_symlink(lib / "libmoegemv.so") ==
        std::string("libmoegemv.so.") + MOEGEMV_SOVERSION);
  CHECK(fs::canonical(lib / "libmoegemv.so").filename() ==
        std::string("libmoegemv.so.") + MOEGEMV_VERSION);
  CHECK(fs::is_regular_file(tree.prefix / "bin/moegemv"));
  CHECK(fs::is_regular_file(lib / "cmake/moegemv/moegemvConfig.cmake"));
  CHECK(fs::is_regular_file(lib / "cmake/moegemv/moegemvConfigVersion.cmake"));
  CHECK(fs::is_regular_file(lib / "pkgconfig/moegemv.pc"));

  for (const auto& entry : fs::recursive_directory_iterator(tree.prefix)) {
    if (!entry.is_regular_file() || entry.is_symlink()) continue;
    INFO(entry.path());
    CHECK(entry.path().extension() != ".a");  // the static archives are not shipped
    if (entry.path().extension() != ".cmake" && entry.path().extension() != ".pc") continue;
    const std::string text = slurp(entry.path());
    for (const std::string& path :
         {std::string(MOEGEMV_SOURCE_DIR), std::string(MOEGEMV_BINARY_DIR), tree.stage.string()}) {
      INFO("names " << path);
      CHECK(text.find(path) == std::string::npos);
    }
  }
}

TEST_CASE("install: a C program uses moegemv.h and libmoegemv.so only", "[package]") {
  const Installed& tree = installed();
  TempDir scratch;
  const fs::path lib = tree.prefix / MOEGEMV_INSTALL_LIBDIR;
  const fs::path program = scratch.path() / "c_abi_user";
  std::vector<std::string> cc = {MOEGEMV_CC,
                                 "-std=c99",
                                 "-pedantic",
                                 "-Wall",
                                 "-Wextra",
                                 "-Werror",
                                 "-o",
                                 program.string(),
                                 std::string(MOEGEMV_SOURCE_DIR) + "/tests/package/c_abi_user.c"};
  if (std::string(MOEGEMV_PKG_CONFIG).empty()) {
    WARN("no pkg-config at configure time: moegemv.pc not checked; flags given by hand");
    cc.insert(cc.end(),
              {"-I" + (tree.prefix / "include").string(), "-L" + lib.string(), "-lmoegemv"});
  } else {
    const Output flags =
        run_ok({MOEGEMV_PKG_CONFIG, "--cflags", "--libs", "moegemv"}, scratch.path(),
               {{"PKG_CONFIG_PATH", (lib / "pkgconfig").string()}});
    std::istringstream words(flags.out);
    for (std::string word; words >> word;) cc.push_back(word);
  }
  cc.push_back("-Wl,-rpath," + lib.string());
  run_ok(cc, scratch.path());

  // A cache directory under a regular file cannot be made: the library warns once, through the
  // program's log handler.
  std::ofstream(scratch.path() / "a_file") << "x";
  const std::string cache_dir = (scratch.path() / "a_file" / "cache").string();
  const Output r = run({program.string(), MOEGEMV_VERSION}, scratch.path(),
                       {{"MOEGEMV_CACHE_DIR", cache_dir}});
  INFO(r.both());
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Contains("log 3: moegemv: cache directory " + cache_dir));
  CHECK_THAT(r.out, Contains("is not writable (Not a directory)"));
  CHECK_THAT(r.out, Contains("log lines: 1"));
  CHECK_THAT(r.err, !Contains("not writable"));
  CHECK_THAT(r.out, Contains("moegemv_version() = " MOEGEMV_VERSION));
  CHECK_THAT(r.out, Contains("moegemv_prepare(\"not a key\") -> 1: invalid argument 'key'"));
  CHECK_THAT(r.out, Contains("moegemv_prepare(valid key) -> 3: "));
  if (!libcuda_loads()) CHECK_THAT(r.out, Contains("libcuda could not be loaded"));
  CHECK_THAT(r.out, Contains("0 failure(s)"));
}

TEST_CASE("install: a CMake project links moegemv::moegemv and catches its errors", "[package]") {
  const Installed& tree = installed();
  TempDir scratch;
  const fs::path build = scratch.path() / "build";
  run_ok({MOEGEMV_CMAKE, "-S", std::string(MOEGEMV_SOURCE_DIR) + "/tests/package/consumer", "-B",
          build.string(), "-DCMAKE_BUILD_TYPE=Release",
          "-DCMAKE_PREFIX_PATH=" + tree.prefix.string(), "-DCMAKE_CXX_COMPILER=" MOEGEMV_CXX,
          "-DCUDAToolkit_ROOT=" MOEGEMV_CUDA_ROOT, "-DMOEGEMV_EXPECTED_VERSION=" MOEGEMV_VERSION},
         scratch.path());
  run_ok({MOEGEMV_CMAKE, "--build", build.string()}, scratch.path());

  // It runs against the installed shared library, not a copy of the code.
  const Output dynamic = run_ok({"readelf", "-dW", (build / "consumer").string()}, scratch.path());
  CHECK_THAT(dynamic.out, Contains(std::string("[libmoegemv.so.") + MOEGEMV_SOVERSION + "]"));
  CHECK_THAT(dynamic.out, Contains((tree.prefix / MOEGEMV_INSTALL_LIBDIR).string()));

  const Output r = run({(build / "consumer").string()}, scratch.path(), child_env(scratch));
  INFO(r.both());
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Contains("Key::parse threw: invalid argument 'engine key'"));
  CHECK_THAT(r.out, Contains("prepare threw: "));
  CHECK_THAT(r.out, Contains("0 failure(s)"));
}

}  // namespace
}  // namespace moegemv::package_test
