#pragma once
// Argument checks shared by the nvfp4 sources (internal).
#include <fmt/format.h>

#include <cstddef>
#include <string>

#include "moegemv/errors.hpp"

namespace moegemv::nvfp4::detail {

inline void check_size(std::size_t got, std::size_t expected, const std::string& argument) {
  if (got != expected)
    throw ArgumentError(argument, fmt::format("{} elements", expected),
                        fmt::format("{} elements", got));
}

inline void check_multiple(int value, int multiple, const std::string& argument, const char* what) {
  if (value <= 0 || value % multiple != 0)
    throw ArgumentError(argument, fmt::format("a positive multiple of {} ({})", multiple, what),
                        std::to_string(value));
}

}  // namespace moegemv::nvfp4::detail
