// The library's logging leaves the application's spdlog setup alone (session 15's review: the
// first kernel lookup set spdlog's global level to warn for every logger in the process).
#include <catch2/catch.hpp>

#include <spdlog/spdlog.h>

#include "jit/log.hpp"
#include "runtime/registry.hpp"

TEST_CASE("opening the cubin store leaves spdlog's default logger and level alone", "[runtime]") {
  const auto default_logger = spdlog::default_logger();
  const auto previous_level = default_logger->level();
  spdlog::set_level(spdlog::level::info);
  moegemv::detail::store();  // the library's first use of its options and cache
  CHECK(spdlog::default_logger() == default_logger);
  CHECK(spdlog::default_logger()->level() == spdlog::level::info);
  CHECK(moegemv::logger().get() != default_logger.get());
  CHECK(moegemv::logger()->name() == "moegemv");
  spdlog::set_level(previous_level);
}
