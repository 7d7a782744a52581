#include "cache/bundle.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <charconv>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cache/byte_io.hpp"
#include "jit/log.hpp"
#include "moegemv/errors.hpp"

namespace moegemv::cache {

namespace {

using nlohmann::json;

constexpr std::size_t kHeaderSize = 8 + 4 + 4 + 8;

json entry_to_json(const BundleEntry& e) {
  return json{{"key", e.key},
              {"arch", e.arch},
              {"nvrtc_version", e.nvrtc_version},
              {"template_hash", e.template_hash},
              {"content_hash", e.content_hash},
              {"offset", e.offset},
              {"size", e.size},
              {"xxh3", hex64(e.checksum)}};
}

// Throws json::exception on a missing or mistyped field.
BundleEntry entry_from_json(const json& j, const std::string& path) {
  BundleEntry e;
  e.key = j.at("key").get<std::string>();
  e.arch = j.at("arch").get<std::string>();
  e.nvrtc_version = j.at("nvrtc_version").get<std::string>();
  e.template_hash = j.at("template_hash").get<std::string>();
  e.content_hash = j.at("content_hash").get<std::string>();
  e.offset = j.at("offset").get<std::uint64_t>();
  e.size = j.at("size").get<std::uint64_t>();
  auto hex = j.at("xxh3").get<std::string>();
  auto [end, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), e.checksum, 16);
  if (hex.size() != 16 || ec != std::errc() || end != hex.data() + hex.size()) {
    throw CacheError(path, "corrupt manifest: bad xxh3 '" + hex + "' for " + e.key);
  }
  return e;
}

}  // namespace

bool serves(const BundleEntry& entry, const EntrySpec& spec) {
  if (entry.key != spec.key.str() || entry.arch != spec.arch ||
      entry.template_hash != spec.template_hash) {
    return false;
  }
  if (entry.nvrtc_version == spec.nvrtc_version) return entry.content_hash == spec.content_hash();
  EntrySpec as_built = spec;
  as_built.nvrtc_version = entry.nvrtc_version;
  return entry.content_hash == as_built.content_hash();
}

std::string mismatch_reason(const Bundle& bundle, const BundleEntry& entry, const EntrySpec& spec) {
  const bool current = bundle.format_version() == static_cast<std::uint32_t>(kFormatVersion);
  if (current && serves(entry, spec)) return "";
  std::vector<std::string> reasons;
  if (!current) {
    reasons.push_back(fmt::format("bundle format v{}, this build needs v{}",
                                  bundle.format_version(), kFormatVersion));
  }
  if (entry.template_hash != spec.template_hash) {
    reasons.push_back(fmt::format("template hash {}, this build has {}", entry.template_hash,
                                  spec.template_hash));
  }
  if (reasons.empty()) reasons.push_back("generated source or compile options differ");
  return fmt::format("{}", fmt::join(reasons, "; "));
}

void BundleWriter::add(const EntrySpec& spec, const std::vector<std::uint8_t>& cubin) {
  Pending pending;
  pending.entry = {spec.key.str(),      spec.arch, spec.nvrtc_version, spec.template_hash,
                   spec.content_hash(), 0,         cubin.size(),       cubin_checksum(cubin)};
  pending.cubin = cubin;
  entries_[pending.entry.content_hash] = std::move(pending);
}

std::vector<std::uint8_t> BundleWriter::serialize() const {
  json manifest_entries = json::array();
  std::uint64_t offset = 0;
  for (const auto& [hash, pending] : entries_) {
    BundleEntry entry = pending.entry;
    entry.offset = offset;
    offset += entry.size;
    manifest_entries.push_back(entry_to_json(entry));
  }
  json manifest{{"format_version", kFormatVersion}, {"entries", std::move(manifest_entries)}};
  std::string text = manifest.dump();

  ByteWriter w;
  w.raw(std::string_view(kBundleMagic, sizeof(kBundleMagic)));
  w.u32(static_cast<std::uint32_t>(kFormatVersion));
  w.u32(static_cast<std::uint32_t>(entries_.size()));
  w.u64(text.size());
  w.raw(text);
  for (const auto& [hash, pending] : entries_) w.raw(pending.cubin);
  return w.take();
}

void BundleWriter::write(const std::string& path) const { write_file_atomic(path, serialize()); }

Bundle Bundle::open(const std::string& path) {
  Bundle bundle;
  bundle.path_ = path;
  bundle.fd_ = Fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat st {};
  if (!bundle.fd_ || ::fstat(bundle.fd_.get(), &st) != 0) {
    throw CacheError(path, "cannot open bundle: " + errno_text(errno));
  }
  const auto file_size = static_cast<std::uint64_t>(st.st_size);

  std::vector<std::uint8_t> header(kHeaderSize);
  if (file_size < kHeaderSize || !pread_all(bundle.fd_.get(), header.data(), kHeaderSize, 0)) {
    throw CacheError(path, "not a moegemv bundle: truncated header");
  }
  ByteReader r(header);
  std::string magic;
  std::uint32_t count = 0;
  std::uint64_t manifest_size = 0;
  r.raw(sizeof(kBundleMagic), magic);
  r.u32(bundle.format_version_);
  r.u32(count);
  r.u64(manifest_size);
  if (std::memcmp(magic.data(), kBundleMagic, sizeof(kBundleMagic)) != 0) {
    throw CacheError(path, "not a moegemv bundle: bad magic");
  }
  const std::string version_note =
      bundle.format_version_ == static_cast<std::uint32_t>(kFormatVersion)
          ? ""
          : fmt::format(" (bundle format v{}, this build reads v{})", bundle.format_version_,
                        kFormatVersion);
  if (manifest_size > file_size - kHeaderSize) {
    throw CacheError(path, "truncated bundle: manifest runs past the end" + version_note);
  }
  std::string text(manifest_size, '\0');
  if (!pread_all(bundle.fd_.get(), text.data(), text.size(), kHeaderSize)) {
    throw CacheError(path, "cannot read manifest: " + errno_text(errno));
  }
  bundle.data_offset_ = kHeaderSize + manifest_size;
  try {
    bundle.load_manifest(json::parse(text), count, file_size - bundle.data_offset_);
  } catch (const json::exception& e) {
    throw CacheError(path, std::string("corrupt manifest: ") + e.what() + version_note);
  }
  return bundle;
}

// Throws json::exception or CacheError.
void Bundle::load_manifest(const json& manifest, std::uint32_t count, std::uint64_t data_size) {
  if (manifest.at("format_version").get<std::uint32_t>() != format_version_) {
    throw CacheError(path_, "corrupt bundle: header and manifest format versions differ");
  }
  const json& list = manifest.at("entries");
  if (!list.is_array() || list.size() != count) {
    throw CacheError(path_, fmt::format("corrupt manifest: header says {} entries", count));
  }
  for (const json& item : list) {
    BundleEntry entry = entry_from_json(item, path_);
    if (entry.offset > data_size || entry.size > data_size - entry.offset) {
      throw CacheError(
          path_, fmt::format("truncated bundle: {} {} lies past the end", entry.key, entry.arch));
    }
    by_hash_.emplace(entry.content_hash, entries_.size());
    entries_.push_back(std::move(entry));
  }
}

std::optional<std::vector<std::uint8_t>> Bundle::read_entry(std::size_t index,
                                                            std::string* error) const {
  const BundleEntry& entry = entries_[index];
  std::vector<std::uint8_t> cubin(entry.size);
  if (!pread_all(fd_.get(), cubin.data(), cubin.size(), data_offset_ + entry.offset)) {
    *error = "cannot read: " + errno_text(errno);
    return std::nullopt;
  }
  if (cubin_checksum(cubin) != entry.checksum) {
    *error = fmt::format("checksum mismatch (manifest {}, computed {})", hex64(entry.checksum),
                         hex64(cubin_checksum(cubin)));
    return std::nullopt;
  }
  return cubin;
}

const BundleEntry* Bundle::entry_for(const EntrySpec& spec, const std::set<std::string>& skip,
                                     bool same_nvrtc_only) const {
  if (format_version_ != static_cast<std::uint32_t>(kFormatVersion)) return nullptr;
  // serves() re-checks what the hash covers, so that a hand-edited manifest cannot lie.
  auto it = by_hash_.find(spec.content_hash());
  if (it != by_hash_.end() && !skip.count(it->first) && serves(entries_[it->second], spec)) {
    return &entries_[it->second];
  }
  if (same_nvrtc_only) return nullptr;
  for (const BundleEntry& entry : entries_) {
    if (!skip.count(entry.content_hash) && serves(entry, spec)) return &entry;
  }
  return nullptr;
}

std::optional<std::vector<std::uint8_t>> Bundle::find(const EntrySpec& spec) const {
  const BundleEntry* entry = entry_for(spec);
  if (entry == nullptr) return std::nullopt;
  return find(entry->content_hash);
}

std::optional<std::vector<std::uint8_t>> Bundle::find(const std::string& content_hash) const {
  auto it = by_hash_.find(content_hash);
  if (format_version_ != static_cast<std::uint32_t>(kFormatVersion) || it == by_hash_.end()) {
    return std::nullopt;
  }
  std::string error;
  auto cubin = read_entry(it->second, &error);
  if (!cubin) {
    const BundleEntry& entry = entries_[it->second];
    logger()->warn("moegemv: bundle {}: entry {} for {} is damaged ({}); ignoring it", path_,
                   entry.key, entry.arch, error);
  }
  return cubin;
}

VerifyReport Bundle::verify() const {
  VerifyReport report;
  for (std::size_t i = 0; i < entries_.size(); ++i, ++report.checked) {
    std::string error;
    if (!read_entry(i, &error)) {
      report.failures.push_back(entries_[i].key + " " + entries_[i].arch + ": " + error);
    }
  }
  return report;
}

}  // namespace moegemv::cache
