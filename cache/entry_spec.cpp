// EntrySpec::content_hash and the checksum helpers: the only places that hash.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <fmt/format.h>

#include "cache/byte_io.hpp"
#include "cache/store.hpp"

namespace moegemv::cache {

std::string EntrySpec::content_hash() const {
  // Fixed field order, each length-prefixed, so that moving bytes between fields changes the hash.
  // Only content goes in: a path here would make every install layout recompile everything.
  ByteWriter w;
  w.str("moegemv.entry");
  w.u32(static_cast<std::uint32_t>(kFormatVersion));
  w.str(key.str());
  w.str(arch);
  w.str(source);
  w.u64(options.size());
  for (const auto& option : options) w.str(option);
  w.str(nvrtc_version);
  w.str(template_hash);
  const auto& bytes = w.bytes();
  XXH128_hash_t digest = XXH3_128bits(bytes.data(), bytes.size());
  return fmt::format("{:016x}{:016x}", digest.high64, digest.low64);
}

const char* origin_name(Origin origin) {
  switch (origin) {
    case Origin::kBundle:
      return "bundle";
    case Origin::kDisk:
      return "cache";
    case Origin::kCompiled:
      return "compiled";
  }
  return "unknown";
}

std::uint64_t cubin_checksum(std::span<const std::uint8_t> bytes) {
  return XXH3_64bits(bytes.data(), bytes.size());
}

std::string hex64(std::uint64_t v) { return fmt::format("{:016x}", v); }

}  // namespace moegemv::cache
