#include "jit/render.hpp"

#include <set>

#include "moegemv/errors.hpp"

namespace moegemv::jit {

std::string render(const std::string& text, const std::map<std::string, std::string>& values) {
  std::string out;
  std::set<std::string> used;
  std::size_t pos = 0;
  while (true) {
    std::size_t open = text.find("{{", pos);
    if (open == std::string::npos) break;
    std::size_t close = text.find("}}", open);
    if (close == std::string::npos)
      throw ArgumentError("template", "balanced {{name}} placeholders", text.substr(open, 32));
    out.append(text, pos, open - pos);
    std::string name = text.substr(open + 2, close - open - 2);
    auto it = values.find(name);
    if (it == values.end())
      throw ArgumentError("template placeholder", "one of the supplied names", "{{" + name + "}}");
    out += it->second;
    used.insert(name);
    pos = close + 2;
  }
  out.append(text, pos, std::string::npos);
  for (const auto& [name, value] : values)
    if (!used.count(name))
      throw ArgumentError("template value", "a placeholder for every supplied name", name);
  return out;
}

}  // namespace moegemv::jit
