#include "jit/dynlib.hpp"

namespace moegemv::jit {

void* open_first(const std::vector<std::string>& names, std::string& tried) {
  for (const std::string& name : names) {
    if (void* lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) return lib;
    const char* error = dlerror();
    tried += (tried.empty() ? "" : "; ") + std::string(error != nullptr ? error : name);
  }
  return nullptr;
}

}  // namespace moegemv::jit
