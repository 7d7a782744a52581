// A public declaration without MOEGEMV_API is hidden in libmoegemv.so: the static library still
// links, so only an engine's link would fail. test_symbols.cpp checks what is marked; this checks
// that nothing defined in the .so is left unmarked. It reads the headers as the house style
// writes them: namespace members at column 0, class members indented, "};" closing a class.
#include <regex>

#include "process.hpp"

namespace moegemv::package_test {
namespace {

std::string without_comments(const std::string& line) {
  const auto slashes = line.find("//");
  return slashes == std::string::npos ? line : line.substr(0, slashes);
}

// Namespace-scope functions, and classes with a member function declared without a body (so
// defined in the library), that lack MOEGEMV_API.
std::vector<std::string> unmarked(const fs::path& header) {
  const std::regex function_start(R"(^[A-Za-z_][\w:<>,*& ]*\b\w+\s*\()");
  const std::regex class_start(R"(^(class|struct)\s+(\w+)[^;]*\{)");
  const std::regex out_of_line_member(R"(\)\s*(const\s*)?(noexcept\s*)?;\s*$)");
  const std::regex skipped(R"(^(using|typedef|namespace|enum|template|return|#)\b)");
  std::vector<std::string> found;
  const std::vector<std::string> text = lines(slurp(header));
  for (std::size_t n = 0; n < text.size(); ++n) {
    const std::string line = without_comments(text[n]);
    std::smatch m;
    if (line.empty() || std::isspace(static_cast<unsigned char>(line[0])) ||
        std::regex_search(line, skipped) || line.find("MOEGEMV_API") != std::string::npos)
      continue;
    if (std::regex_search(line, m, class_start)) {
      for (std::size_t b = n + 1; b < text.size() && text[b].rfind("};", 0) != 0; ++b) {
        const std::string member = without_comments(text[b]);
        if (std::regex_search(member, out_of_line_member)) {
          found.push_back(header.filename().string() + ": " + m[2].str() + " (" + member + ")");
          break;
        }
      }
    } else if (std::regex_search(line, function_start)) {
      found.push_back(header.filename().string() + ": " + line);
    }
  }
  return found;
}

TEST_CASE("public headers: every declaration the library defines is MOEGEMV_API", "[package]") {
  const fs::path dir = fs::path(MOEGEMV_SOURCE_DIR) / "include" / "moegemv";
  std::string missing;
  int headers = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".hpp" && entry.path().extension() != ".h") continue;
    ++headers;
    for (const auto& what : unmarked(entry.path())) missing += "  " + what + "\n";
  }
  REQUIRE(headers > 0);
  INFO("declared in a public header without MOEGEMV_API (hidden in libmoegemv.so):\n" << missing);
  CHECK(missing.empty());
}

}  // namespace
}  // namespace moegemv::package_test
