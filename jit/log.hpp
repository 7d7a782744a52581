#pragma once
// moegemv's own logger. The library logs through it only, never through spdlog's default logger,
// and never sets spdlog's global level: both belong to the application that links moegemv.
#include <memory>

#include <spdlog/spdlog.h>

namespace moegemv {

/// The library's logger: stderr, named "moegemv", at MOEGEMV_LOG_LEVEL (warn by default).
std::shared_ptr<spdlog::logger> logger();

/// Replaces the library's logger (the CLI's formatting, tests' capture); returns the previous.
std::shared_ptr<spdlog::logger> set_logger(std::shared_ptr<spdlog::logger> next);

}  // namespace moegemv
