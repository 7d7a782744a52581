#include "cache/entry_format.hpp"

#include <cstring>

#include <fmt/format.h>

#include "cache/byte_io.hpp"

namespace moegemv::cache {

std::vector<std::uint8_t> encode_entry(const EntrySpec& spec, const std::string& content_hash,
                                       std::span<const std::uint8_t> cubin) {
  ByteWriter w;
  w.raw(std::string_view(kEntryMagic, sizeof(kEntryMagic)));
  w.u32(static_cast<std::uint32_t>(kFormatVersion));
  w.str(spec.key.str());
  w.str(spec.arch);
  w.str(spec.nvrtc_version);
  w.str(spec.template_hash);
  w.str(content_hash);
  w.u64(cubin.size());
  w.u64(cubin_checksum(cubin));
  w.raw(cubin);
  return w.take();
}

std::optional<EntryHeader> parse_entry_header(std::span<const std::uint8_t> file,
                                              std::size_t* payload_offset, std::string* error) {
  ByteReader r(file);
  std::string magic;
  EntryHeader h;
  if (!r.raw(sizeof(kEntryMagic), magic) ||
      std::memcmp(magic.data(), kEntryMagic, sizeof(kEntryMagic)) != 0) {
    *error = "bad magic";
    return std::nullopt;
  }
  if (!r.u32(h.format_version)) {
    *error = "truncated header";
    return std::nullopt;
  }
  if (h.format_version != static_cast<std::uint32_t>(kFormatVersion)) {
    *error = fmt::format("format v{}, expected v{}", h.format_version, kFormatVersion);
    return std::nullopt;
  }
  if (!r.str(h.key) || !r.str(h.arch) || !r.str(h.nvrtc_version) || !r.str(h.template_hash) ||
      !r.str(h.content_hash) || !r.u64(h.cubin_size) || !r.u64(h.checksum)) {
    *error = "truncated or corrupt header";
    return std::nullopt;
  }
  if (r.remaining() < h.cubin_size) {
    *error =
        fmt::format("truncated: cubin is {} bytes, header says {}", r.remaining(), h.cubin_size);
    return std::nullopt;
  }
  if (r.remaining() > h.cubin_size) {
    *error = fmt::format("{} unexpected bytes after the cubin", r.remaining() - h.cubin_size);
    return std::nullopt;
  }
  *payload_offset = r.pos();
  return h;
}

std::optional<std::vector<std::uint8_t>> decode_entry(std::span<const std::uint8_t> file,
                                                      const EntrySpec& spec,
                                                      const std::string& content_hash,
                                                      std::string* error) {
  std::size_t offset = 0;
  auto header = parse_entry_header(file, &offset, error);
  if (!header) return std::nullopt;
  auto mismatch = [&](const char* field, const std::string& got, const std::string& want) {
    *error = fmt::format("{} is '{}', expected '{}'", field, got, want);
    return std::nullopt;
  };
  if (header->content_hash != content_hash)
    return mismatch("content hash", header->content_hash, content_hash);
  if (header->key != spec.key.str()) return mismatch("key", header->key, spec.key.str());
  if (header->arch != spec.arch) return mismatch("arch", header->arch, spec.arch);
  if (header->nvrtc_version != spec.nvrtc_version)
    return mismatch("NVRTC version", header->nvrtc_version, spec.nvrtc_version);
  if (header->template_hash != spec.template_hash)
    return mismatch("template hash", header->template_hash, spec.template_hash);
  auto cubin = file.subspan(offset);
  if (cubin_checksum(cubin) != header->checksum) {
    *error = fmt::format("checksum mismatch (stored {}, computed {})", hex64(header->checksum),
                         hex64(cubin_checksum(cubin)));
    return std::nullopt;
  }
  return std::vector<std::uint8_t>(cubin.begin(), cubin.end());
}

}  // namespace moegemv::cache
