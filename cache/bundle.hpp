#pragma once
// A bundle: many cubins in one versioned file, shipped with a deployment so that no process
// compiles at run time, nor needs NVRTC at all. An entry serves every process that generates the
// same source and options for its key and arch, whatever NVRTC that process has, or none (the
// NVRTC that built it is part of its content hash, so the test re-hashes with that version: see
// serves()). Layout v1 (little-endian):
//   char[8] "MOEGEMVB" | u32 format version | u32 entry count | u64 manifest size
//   | manifest: JSON {"entries": [...], "format_version": N}, compact, keys sorted
//   | cubins, each at its manifest "offset", counted from the first byte after the manifest.
// Each manifest entry: key, arch, nvrtc_version, template_hash, content_hash, offset, size and
// xxh3 (16 hex digits, XXH3-64 of the cubin). A change here must bump kFormatVersion
// (tests/cache/golden/bundle_v<N>.bin pins the bytes).
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "cache/posix_io.hpp"
#include "cache/store.hpp"

namespace moegemv::cache {

inline constexpr char kBundleMagic[8] = {'M', 'O', 'E', 'G', 'E', 'M', 'V', 'B'};

struct BundleEntry {
  std::string key, arch, nvrtc_version, template_hash, content_hash;
  std::uint64_t offset = 0;    ///< from the start of the cubin section
  std::uint64_t size = 0;      ///< cubin bytes
  std::uint64_t checksum = 0;  ///< XXH3-64 of the cubin
};

class Bundle;

struct VerifyReport {
  std::size_t checked = 0;
  std::vector<std::string> failures;  ///< one line per bad entry: "<key> <arch>: <why>"
  bool ok() const { return failures.empty(); }
};

/// Whether `entry` holds the cubin for `spec`: same key, arch and templates, and the content hash
/// of `spec` built by the entry's NVRTC (which may not be this process's: a cubin's code does not
/// depend on the NVRTC of the process that loads it; the driver alone decides if it loads).
bool serves(const BundleEntry& entry, const EntrySpec& spec);

/// Why `entry` of `bundle` does not serve `spec` (its key and arch), or "" if it does: the
/// runtime's own test (format version and serves()), with the differing parts named.
std::string mismatch_reason(const Bundle& bundle, const BundleEntry& entry, const EntrySpec& spec);

class BundleWriter {
 public:
  /// Adds (or replaces, for the same content hash) one entry.
  void add(const EntrySpec& spec, const std::vector<std::uint8_t>& cubin);
  std::size_t size() const { return entries_.size(); }
  /// The whole bundle file as bytes. Entries are ordered by content hash, so the bytes depend
  /// only on the set of entries, not on the order they were added.
  std::vector<std::uint8_t> serialize() const;
  /// Writes the bundle atomically (temp file in the same directory + rename). Throws CacheError.
  void write(const std::string& path) const;

 private:
  struct Pending {
    BundleEntry entry;
    std::vector<std::uint8_t> cubin;
  };
  std::map<std::string, Pending> entries_;  // by content hash
};

class Bundle {
 public:
  /// Reads the header and manifest. Throws CacheError if the file is unreadable, its header or
  /// manifest is corrupt, or an entry lies outside the file. A bundle of another format version
  /// opens (if its header parses) but none of its entries match a spec of this build.
  static Bundle open(const std::string& path);

  const std::string& path() const { return path_; }
  std::uint32_t format_version() const { return format_version_; }
  const std::vector<BundleEntry>& entries() const { return entries_; }

  /// The entry that serves `spec` and whose content hash is not in `skip`: the one built by
  /// this process's NVRTC if present, else (unless same_nvrtc_only) one built by another.
  /// nullptr if none (or if the
  /// bundle is of another format version).
  const BundleEntry* entry_for(const EntrySpec& spec, const std::set<std::string>& skip = {},
                               bool same_nvrtc_only = false) const;

  /// The cubin of entry_for(spec), checksum verified. nullopt if absent; nullopt plus a warning
  /// if its bytes are damaged.
  std::optional<std::vector<std::uint8_t>> find(const EntrySpec& spec) const;
  /// The cubin of the entry with this content hash, as find(spec).
  std::optional<std::vector<std::uint8_t>> find(const std::string& content_hash) const;

  /// Reads every cubin and checks its checksum.
  VerifyReport verify() const;

 private:
  Bundle() = default;
  void load_manifest(const nlohmann::json& manifest, std::uint32_t count, std::uint64_t data_size);
  // The cubin of entries_[index]; nullopt with `*error` set if unreadable or damaged.
  std::optional<std::vector<std::uint8_t>> read_entry(std::size_t index, std::string* error) const;

  std::string path_;
  Fd fd_;
  std::uint32_t format_version_ = 0;
  std::uint64_t data_offset_ = 0;
  std::vector<BundleEntry> entries_;
  std::unordered_map<std::string, std::size_t> by_hash_;
};

}  // namespace moegemv::cache
