// The MOEGEMV_* environment read into Options: values it cannot read are errors naming the
// variable (spdlog alone would turn an unknown log level into "off", hiding every warning).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

#include "moegemv/errors.hpp"
#include "moegemv/options.hpp"

using moegemv::ArgumentError;
using moegemv::Options;

namespace {
// Sets one variable for a scope, restoring the previous value.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_)
      setenv(name_, old_.c_str(), 1);
    else
      unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};
}  // namespace

TEST_CASE("MOEGEMV_DISABLE_JIT takes the usual spellings and refuses others", "[options]") {
  for (const char* on : {"1", "true", "TRUE", "yes", "on"}) {
    ScopedEnv env("MOEGEMV_DISABLE_JIT", on);
    CHECK(Options::from_env().disable_jit);
  }
  for (const char* off : {"", "0", "false", "No", "off"}) {
    ScopedEnv env("MOEGEMV_DISABLE_JIT", off);
    CHECK_FALSE(Options::from_env().disable_jit);
  }
  ScopedEnv unset("MOEGEMV_DISABLE_JIT", nullptr);
  CHECK_FALSE(Options::from_env().disable_jit);
  ScopedEnv bad("MOEGEMV_DISABLE_JIT", "enabled");
  CHECK_THROWS_AS(Options::from_env(), ArgumentError);
  CHECK_THROWS_WITH(Options::from_env(),
                    Catch::Contains("MOEGEMV_DISABLE_JIT") && Catch::Contains("enabled"));
}

TEST_CASE("MOEGEMV_LOG_LEVEL: spdlog's names in any case, others refused", "[options]") {
  {
    ScopedEnv unset("MOEGEMV_LOG_LEVEL", nullptr);
    CHECK(Options::from_env().log_level == "warn");
  }
  const std::pair<const char*, const char*> cases[] = {
      {"debug", "debug"}, {"INFO", "info"}, {"Warn", "warn"}, {"warning", "warn"},
      {"error", "err"},   {"err", "err"},   {"off", "off"},   {"critical", "critical"}};
  for (const auto& [value, level] : cases) {
    ScopedEnv env("MOEGEMV_LOG_LEVEL", value);
    CHECK(Options::from_env().log_level == level);
  }
  ScopedEnv bad("MOEGEMV_LOG_LEVEL", "verbose");
  CHECK_THROWS_WITH(Options::from_env(),
                    Catch::Contains("MOEGEMV_LOG_LEVEL") && Catch::Contains("verbose"));
}

TEST_CASE("the cache directory's fallbacks, the last one per user and private", "[options]") {
  ScopedEnv dir("MOEGEMV_CACHE_DIR", nullptr);
  {
    ScopedEnv xdg("XDG_CACHE_HOME", "/x/cache");
    const Options o = Options::from_env();
    CHECK(o.cache_dir == "/x/cache/moegemv");
    CHECK_FALSE(o.cache_dir_private);
  }
  ScopedEnv xdg("XDG_CACHE_HOME", nullptr);
  {
    ScopedEnv home("HOME", "/home/u");
    CHECK(Options::from_env().cache_dir == "/home/u/.cache/moegemv");
  }
  ScopedEnv home("HOME", nullptr);
  const Options o = Options::from_env();
  CHECK(o.cache_dir == "/tmp/moegemv-cache-" + std::to_string(::geteuid()));
  CHECK(o.cache_dir_private);
  ScopedEnv set("MOEGEMV_CACHE_DIR", "/data/kernels");
  CHECK(Options::from_env().cache_dir == "/data/kernels");
  CHECK_FALSE(Options::from_env().cache_dir_private);
}
