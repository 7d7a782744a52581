#pragma once
// A {{name}} template renderer: every placeholder must be supplied and every supplied name used,
// so a typo in the generator or in a template is an error, not silently wrong code.
#include <map>
#include <string>

namespace moegemv::jit {

std::string render(const std::string& text, const std::map<std::string, std::string>& values);

}  // namespace moegemv::jit
