#pragma once
// Shared fixtures for the cache tests: temp dirs, captured logs, specs and a fake compiler.
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include "cache/store.hpp"
#include "jit/log.hpp"
#include "moegemv/options.hpp"

namespace moegemv::cache::test {

/// A fresh directory (mkdtemp), removed with everything in it afterwards.
class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "moegemv-cache-test.XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    // Tests chmod parts of the tree read-only; give write permission back before removing.
    for (auto it = std::filesystem::recursive_directory_iterator(path_, ec);
         it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_directory(ec))
        std::filesystem::permissions(it->path(), std::filesystem::perms::owner_all,
                                     std::filesystem::perm_options::add, ec);
    }
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

/// Routes the default spdlog logger into memory for the scope (and out of the test output).
class LogCapture {
 public:
  struct Line {
    spdlog::level::level_enum level;
    std::string text;
  };

  LogCapture() : sink_(std::make_shared<Sink>()) {
    auto capture = std::make_shared<spdlog::logger>("capture", sink_);
    capture->set_level(spdlog::level::trace);
    previous_ = moegemv::set_logger(capture);
  }
  ~LogCapture() { moegemv::set_logger(previous_); }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  /// Lines at `level` containing `needle`.
  int count(spdlog::level::level_enum level, const std::string& needle = "") const {
    int n = 0;
    for (const auto& line : lines())
      n += line.level == level && line.text.find(needle) != std::string::npos;
    return n;
  }
  int warnings(const std::string& needle = "") const { return count(spdlog::level::warn, needle); }
  std::vector<Line> lines() const {
    std::lock_guard lock(sink_->lines_mutex);
    return sink_->lines;
  }
  std::string dump() const {
    std::string out;
    for (const auto& line : lines())
      out +=
          std::string(spdlog::level::to_string_view(line.level).data()) + ": " + line.text + "\n";
    return out;
  }

 private:
  struct Sink : spdlog::sinks::base_sink<std::mutex> {
    void sink_it_(const spdlog::details::log_msg& msg) override {
      std::lock_guard lock(lines_mutex);
      lines.push_back({msg.level, std::string(msg.payload.data(), msg.payload.size())});
    }
    void flush_() override {}
    mutable std::mutex lines_mutex;
    std::vector<Line> lines;
  };
  std::shared_ptr<Sink> sink_;
  std::shared_ptr<spdlog::logger> previous_;
};

inline EntrySpec make_spec(int variant = 0) {
  EntrySpec spec;
  spec.key = Key{Kind::kGateUp, 7168, 2048, 2048, 8 + variant};
  spec.arch = "sm_90";
  spec.source = "// generated\n#include \"gate_up.cuh\"\ntemplate __global__ void f<" +
                std::to_string(variant) + ">();\n";
  spec.options = {"--std=c++17", "-arch=sm_90", "-default-device"};
  spec.nvrtc_version = "13.0";
  spec.template_hash = "0123456789abcdef";
  return spec;
}

/// Deterministic bytes for a spec, a few KB, different for every spec.
inline std::vector<std::uint8_t> fake_cubin(const EntrySpec& spec) {
  std::string seed =
      "\x7f"
      "ELF fake cubin " +
      spec.content_hash();
  std::vector<std::uint8_t> bytes(seed.begin(), seed.end());
  for (std::size_t i = 0; bytes.size() < 4096 + 16 * std::size_t(spec.key.k); ++i) {
    bytes.push_back(static_cast<std::uint8_t>(seed[i % seed.size()] * 31 + i));
  }
  return bytes;
}

/// A CompileFn for `spec` that counts its calls.
struct CountingCompiler {
  std::atomic<int> calls{0};
  CompileFn fn(const EntrySpec& spec) {
    return [this, spec] {
      ++calls;
      return fake_cubin(spec);
    };
  }
};

inline Options options_for(const std::string& cache_dir) {
  Options options;
  options.cache_dir = cache_dir;
  return options;
}

inline std::vector<std::uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

/// Runs `body` in a forked child; its return value is the exit status (exceptions give 99).
inline pid_t fork_child(const std::function<int()>& body) {
  pid_t pid = ::fork();
  if (pid == 0) {
    int code = 99;
    try {
      code = body();
    } catch (...) {
    }
    ::_exit(code);
  }
  return pid;
}

/// Waits for `pid` up to `timeout`; returns the exit status, or -1 (after SIGKILL) on timeout.
inline int wait_child(pid_t pid, std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace moegemv::cache::test
