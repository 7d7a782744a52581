#pragma once
// The on-disk cache entry, format v1 (little-endian; "str" = u64 length + bytes):
//   char[8] "MOEGEMVC" | u32 format version | str key | str arch | str nvrtc version
//   | str template hash | str content hash | u64 cubin size | u64 XXH3-64 of the cubin | cubin
// A change here must bump kFormatVersion (tests/cache/golden/entry_v<N>.bin pins the bytes).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cache/store.hpp"

namespace moegemv::cache {

inline constexpr char kEntryMagic[8] = {'M', 'O', 'E', 'G', 'E', 'M', 'V', 'C'};

struct EntryHeader {
  std::uint32_t format_version = 0;
  std::string key, arch, nvrtc_version, template_hash, content_hash;
  std::uint64_t cubin_size = 0;
  std::uint64_t checksum = 0;
};

/// The full entry file for `spec` (whose content hash is `content_hash`) holding `cubin`.
std::vector<std::uint8_t> encode_entry(const EntrySpec& spec, const std::string& content_hash,
                                       std::span<const std::uint8_t> cubin);

/// Parses the header of an entry file. On failure returns nullopt and says why in `*error`.
/// `*payload_offset` receives where the cubin starts.
std::optional<EntryHeader> parse_entry_header(std::span<const std::uint8_t> file,
                                              std::size_t* payload_offset, std::string* error);

/// The cubin of an entry file, after checking magic, version, sizes, checksum and that every
/// header field matches `spec`. On any defect returns nullopt and says why in `*error`.
std::optional<std::vector<std::uint8_t>> decode_entry(std::span<const std::uint8_t> file,
                                                      const EntrySpec& spec,
                                                      const std::string& content_hash,
                                                      std::string* error);

}  // namespace moegemv::cache
