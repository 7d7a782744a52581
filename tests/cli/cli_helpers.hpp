#pragma once
// Running the `moegemv` CLI as a user does, for the [cli] tests: a child process per command,
// each test with its own empty cache directory.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "temp_dir.hpp"

namespace moegemv::cli_test {

namespace fs = std::filesystem;


// A small key: one NVRTC compile of it takes well under a second.
constexpr const char* kSmallKey = "gate_up:2048:768:0:8";

// Each test's scratch directory.
class TempDir : public moegemv::test::TempDir {
 public:
  TempDir() : moegemv::test::TempDir("moegemv-cli") {}
};

struct Result {
  int status = -1;
  std::string out, err;
};

using moegemv::test::slurp;

// Runs build/moegemv with `args`; the child gets MOEGEMV_CACHE_DIR=cache_dir plus `env`, and no
// inherited MOEGEMV_BUNDLE / MOEGEMV_DISABLE_JIT. stdout and stderr go to files (no pipe deadlock).
inline Result run_cli(const std::vector<std::string>& args, const TempDir& dir,
               const std::map<std::string, std::string>& env = {}) {
  static int counter = 0;  // one per test binary: file names stay unique
  const std::string out_path = dir / ("stdout." + std::to_string(counter));
  const std::string err_path = dir / ("stderr." + std::to_string(counter++));
  const std::string binary = std::string(MOEGEMV_BINARY_DIR) + "/moegemv";
  std::vector<char*> argv = {const_cast<char*>(binary.c_str())};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const std::string cache_dir = dir / "cache";

  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    unsetenv("MOEGEMV_BUNDLE");
    unsetenv("MOEGEMV_DISABLE_JIT");
    setenv("MOEGEMV_CACHE_DIR", cache_dir.c_str(), 1);
    for (const auto& [name, value] : env) setenv(name.c_str(), value.c_str(), 1);
    const int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) _exit(126);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  int wstatus = 0;
  REQUIRE(waitpid(pid, &wstatus, 0) == pid);
  Result r;
  r.status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  REQUIRE(r.status != 127);  // the binary exists
  return r;
}

using Catch::Matchers::Contains;

inline std::string joined(const std::vector<std::string>& args) {
  std::string text = "moegemv";
  for (const auto& a : args) text += " " + a;
  return text;
}

inline nlohmann::json parse_json(const Result& r) {
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  nlohmann::json j;
  REQUIRE_NOTHROW(j = nlohmann::json::parse(r.out));
  return j;
}

}  // namespace moegemv::cli_test
