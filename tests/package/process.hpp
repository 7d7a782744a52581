#pragma once
// The [package] tests look at libmoegemv.so from outside, as a user's tools do: child processes
// (nm, readelf, cmake, cc, the programs they build) in temporary directories.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "temp_dir.hpp"

namespace moegemv::package_test {

namespace fs = std::filesystem;

// Each test's scratch directory.
class TempDir : public moegemv::test::TempDir {
 public:
  TempDir() : moegemv::test::TempDir("moegemv-package") {}
};

using moegemv::test::slurp;

struct Output {
  int status = -1;
  std::string out, err;
  std::string both() const { return "stdout:\n" + out + "\nstderr:\n" + err; }
};

// Runs argv[0] (searched in PATH) with `env` added to this process's environment; stdout and
// stderr go to files in `scratch` (no pipe deadlock on long output).
inline Output run(const std::vector<std::string>& argv, const fs::path& scratch,
                  const std::map<std::string, std::string>& env = {}) {
  static int counter = 0;
  const fs::path out_path = scratch / ("stdout." + std::to_string(counter));
  const fs::path err_path = scratch / ("stderr." + std::to_string(counter++));
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    for (const auto& [name, value] : env) setenv(name.c_str(), value.c_str(), 1);
    const int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) _exit(126);
    execvp(args[0], args.data());
    _exit(127);
  }
  int wstatus = 0;
  REQUIRE(waitpid(pid, &wstatus, 0) == pid);
  Output r;
  r.status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  INFO("could not start " << argv[0]);
  REQUIRE(r.status != 127);
  return r;
}

// Runs argv and requires exit status 0, showing everything it printed otherwise.
inline Output run_ok(const std::vector<std::string>& argv, const fs::path& scratch,
                     const std::map<std::string, std::string>& env = {}) {
  Output r = run(argv, scratch, env);
  std::string command;
  for (const auto& a : argv) command += a + " ";
  INFO(command << "\n" << r.both());
  REQUIRE(r.status == 0);
  return r;
}

inline std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> result;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) result.push_back(line);
  return result;
}

}  // namespace moegemv::package_test
