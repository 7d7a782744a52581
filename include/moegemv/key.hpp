#pragma once
// The shape key a kernel is specialized on: (kind, H, I, SI, K). M and E are run-time values.
#include <compare>
#include <cstddef>
#include <string>
#include <string_view>

#include "moegemv/export.h"

namespace moegemv {

enum class Kind { kGateUp, kDownCombine };

MOEGEMV_API std::string_view kind_name(Kind kind);  // "gate_up" | "down_combine"

struct MOEGEMV_API Key {
  Kind kind = Kind::kGateUp;
  int h = 0;   ///< hidden size
  int i = 0;   ///< routed-expert intermediate size
  int si = 0;  ///< shared-expert intermediate size, 0 = no shared expert
  int k = 0;   ///< top-k

  /// Canonical text form, e.g. "gate_up:7168:2048:2048:8".
  std::string str() const;
  /// Parses the canonical form; throws ArgumentError naming `argument` on any defect.
  static Key parse(std::string_view text, std::string_view argument = "key");
  /// Throws ArgumentError unless H % 64 == 0, I % 64 == 0, SI % 64 == 0 (or 0), 1 <= K <= 32.
  void validate() const;

  auto operator<=>(const Key&) const = default;
};

struct MOEGEMV_API KeyHash {
  std::size_t operator()(const Key& key) const noexcept;
};

}  // namespace moegemv
