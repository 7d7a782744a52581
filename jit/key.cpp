#include "moegemv/key.hpp"

#include <charconv>
#include <fmt/format.h>
#include <vector>

#include "moegemv/errors.hpp"

namespace moegemv {

std::string_view kind_name(Kind kind) {
  return kind == Kind::kGateUp ? "gate_up" : "down_combine";
}

std::string Key::str() const { return fmt::format("{}:{}:{}:{}:{}", kind_name(kind), h, i, si, k); }

namespace {
std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (std::size_t pos; (pos = text.find(sep, start)) != std::string_view::npos; start = pos + 1)
    parts.push_back(text.substr(start, pos - start));
  parts.push_back(text.substr(start));
  return parts;
}
}  // namespace

Key Key::parse(std::string_view text, std::string_view argument) {
  const std::string expected = "KIND:H:I:SI:K with KIND gate_up or down_combine";
  auto parts = split(text, ':');
  if (parts.size() != 5) throw ArgumentError(std::string(argument), expected, std::string(text));
  Key key;
  if (parts[0] == "gate_up") {
    key.kind = Kind::kGateUp;
  } else if (parts[0] == "down_combine") {
    key.kind = Kind::kDownCombine;
  } else {
    throw ArgumentError(std::string(argument), expected, std::string(text));
  }
  int* fields[] = {&key.h, &key.i, &key.si, &key.k};
  for (int f = 0; f < 4; ++f) {
    auto part = parts[f + 1];
    auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), *fields[f]);
    if (ec != std::errc() || ptr != part.data() + part.size() || part.empty())
      throw ArgumentError(std::string(argument), expected + " (decimal integers)",
                          std::string(text));
  }
  key.validate();
  return key;
}

void Key::validate() const {
  auto fail = [&](const char* what, std::string expected, int got) {
    throw ArgumentError(fmt::format("{} of key {}", what, str()), std::move(expected),
                        std::to_string(got));
  };
  if (h <= 0 || h % 64 != 0) fail("H", "a positive multiple of 64", h);
  if (i <= 0 || i % 64 != 0) fail("I", "a positive multiple of 64", i);
  if (si < 0 || si % 64 != 0) fail("SI", "0 or a positive multiple of 64", si);
  if (k < 1 || k > 32) fail("K", "1 <= K <= 32", k);
}

std::size_t KeyHash::operator()(const Key& key) const noexcept {
  std::size_t hash = static_cast<std::size_t>(key.kind);
  for (int v : {key.h, key.i, key.si, key.k}) hash = hash * 1000003u ^ static_cast<std::size_t>(v);
  return hash;
}

}  // namespace moegemv
