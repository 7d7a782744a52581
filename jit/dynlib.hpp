#pragma once
// Opening a shared library at run time (dlopen): the first of several candidate names that loads,
// and its entry points resolved by name. Used for libnvrtc (jit/) and libnccl (runtime/); libcuda
// has its own path (cuGetProcAddress, runtime/driver.cpp).

#include <dlfcn.h>

#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

namespace moegemv::jit {

// The handle of the first of `names` that dlopen loads (RTLD_NOW | RTLD_LOCAL), or nullptr with
// every attempt's dlerror() appended to `tried` ("; "-separated).
void* open_first(const std::vector<std::string>& names, std::string& tried);

// Resolves entry points from one handle; `missing()` names the first that was not found.
class Symbols {
 public:
  explicit Symbols(void* lib) : lib_(lib) {}
  template <typename Fn>
  void bind(Fn& fn, const char* name) {
    fn = reinterpret_cast<Fn>(dlsym(lib_, name));
    if (fn == nullptr && missing_.empty()) missing_ = name;
  }
  const std::string& missing() const { return missing_; }

 private:
  void* lib_;
  std::string missing_;
};

}  // namespace moegemv::jit
