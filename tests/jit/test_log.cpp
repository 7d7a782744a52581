// set_log_handler: the library's lines reach an application's handler at its level, a throwing
// handler cannot break the code that logs, and an empty handler returns the lines to stderr.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <unistd.h>

#include <cstdio>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "jit/log.hpp"
#include "moegemv/log.hpp"

using moegemv::LogLevel;

namespace {

// Puts back whatever logger the test binary had.
struct RestoreLogger {
  std::shared_ptr<spdlog::logger> saved = moegemv::logger();
  ~RestoreLogger() { moegemv::set_logger(saved); }
};

struct Collected {
  std::mutex mutex;
  std::vector<std::pair<LogLevel, std::string>> lines;
  moegemv::LogHandler handler() {
    return [this](LogLevel level, std::string_view text) {
      std::lock_guard lock(mutex);
      lines.emplace_back(level, std::string(text));
    };
  }
};

}  // namespace

TEST_CASE("a log handler gets the library's lines at and above its level", "[log]") {
  RestoreLogger restore;
  Collected got;
  moegemv::set_log_handler(got.handler(), LogLevel::kInfo);
  moegemv::logger()->debug("below the level");
  moegemv::logger()->info("compiling {} for {}", "gate_up:2048:768:0:8", "sm_90");
  moegemv::logger()->warn("a warning");
  std::thread([] { moegemv::logger()->error("from another thread"); }).join();
  REQUIRE(got.lines.size() == 3);
  CHECK(got.lines[0] == std::pair{LogLevel::kInfo, std::string("compiling gate_up:2048:768:0:8 for sm_90")});
  CHECK(got.lines[1] == std::pair{LogLevel::kWarn, std::string("a warning")});
  CHECK(got.lines[2] == std::pair{LogLevel::kError, std::string("from another thread")});

  moegemv::set_log_handler(got.handler(), LogLevel::kOff);
  moegemv::logger()->critical("nothing at off");
  CHECK(got.lines.size() == 3);
}

TEST_CASE("a throwing log handler does not throw into the code that logs", "[log]") {
  RestoreLogger restore;
  int calls = 0;
  moegemv::set_log_handler(
      [&calls](LogLevel, std::string_view) {
        ++calls;
        throw std::runtime_error("handler failed");
      },
      LogLevel::kWarn);
  // spdlog would catch it too, but print "LOG ERROR" to stderr: nothing may reach stderr.
  std::FILE* capture = std::tmpfile();
  REQUIRE(capture != nullptr);
  std::fflush(stderr);
  const int saved = ::dup(2);
  ::dup2(::fileno(capture), 2);
  CHECK_NOTHROW(moegemv::logger()->warn("first"));
  CHECK_NOTHROW(moegemv::logger()->error("second"));
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  CHECK(std::ftell(capture) == 0);
  std::fseek(capture, 0, SEEK_END);
  CHECK(std::ftell(capture) == 0);
  std::fclose(capture);
  CHECK(calls == 2);
}

TEST_CASE("replacing the log handler waits for a call in flight; calls never overlap", "[log]") {
  RestoreLogger restore;
  std::atomic<int> inside{0}, most{0};
  std::atomic<bool> old_running_after_replace{false}, replaced{false};
  auto slow = [&](LogLevel, std::string_view) {
    const int now = ++inside;
    most = std::max(most.load(), now);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (replaced) old_running_after_replace = true;
    --inside;
  };
  moegemv::set_log_handler(slow, LogLevel::kWarn);
  std::thread a([] { moegemv::logger()->warn("a"); });
  std::thread b([] { moegemv::logger()->warn("b"); });
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  moegemv::set_log_handler(slow, LogLevel::kWarn);  // the same handler again, as a C caller might
  moegemv::set_log_handler({}, LogLevel::kOff);
  replaced = true;
  a.join();
  b.join();
  CHECK(most == 1);
  CHECK_FALSE(old_running_after_replace);
}

TEST_CASE("an empty log handler sends the lines to stderr again, at the level given", "[log]") {
  RestoreLogger restore;
  Collected got;
  moegemv::set_log_handler(got.handler(), LogLevel::kTrace);
  moegemv::set_log_handler({}, LogLevel::kError);
  const auto logger = moegemv::logger();
  CHECK(logger->level() == spdlog::level::err);
  REQUIRE(logger->sinks().size() == 1);
  CHECK(std::dynamic_pointer_cast<spdlog::sinks::stderr_color_sink_mt>(logger->sinks()[0]) !=
        nullptr);
  logger->error("to stderr, not the old handler");
  CHECK(got.lines.empty());
}
