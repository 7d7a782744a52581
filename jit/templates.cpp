#include "jit/templates.hpp"

#define XXH_INLINE_ALL
#include <fmt/format.h>
#include <xxhash.h>

#include <cstring>

namespace moegemv::jit {

const std::string& templates_hash() {
  static const std::string hash = [] {
    XXH3_state_t* state = XXH3_createState();
    XXH3_64bits_reset(state);
    for (const auto& file : embedded_templates()) {
      XXH3_64bits_update(state, file.name, std::strlen(file.name) + 1);
      XXH3_64bits_update(state, file.content, std::strlen(file.content) + 1);
    }
    auto digest = XXH3_64bits_digest(state);
    XXH3_freeState(state);
    return fmt::format("{:016x}", digest);
  }();
  return hash;
}

}  // namespace moegemv::jit
