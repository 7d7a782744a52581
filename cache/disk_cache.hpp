#pragma once
// The on-disk cubin cache: one file per entry, <root>/<hash[0:2]>/<hash>.cubin, published
// atomically; a per-entry <hash>.lock serializes compiles across processes. Readers never lock.
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cache/posix_io.hpp"
#include "cache/store.hpp"

namespace moegemv::cache {

/// Whether `dir` holds nothing but a cache root's layout (two-hex shard directories of entry, lock
/// and temp files), none modified for `min_age`: e.g. another entry format's root, safe to drop.
bool holds_only_cache_files(const std::string& dir, std::chrono::seconds min_age);

class DiskCache {
 public:
  enum class Status { kHit, kMissing, kCorrupt };
  struct ReadResult {
    Status status = Status::kMissing;
    std::vector<std::uint8_t> bytes;
    std::string error;  ///< why an entry is corrupt
  };

  /// Creates `root` if needed and checks that it is writable; if not, warns once per process and
  /// root and works memory-only (reads whatever valid entries exist, never writes). An empty
  /// root: memory-only, nothing read, no warning.
  explicit DiskCache(std::string root);

  const std::string& root() const { return root_; }
  bool writable() const { return writable_; }
  std::string entry_path(const std::string& content_hash) const;
  std::string lock_path(const std::string& content_hash) const;

  /// Reads and fully validates the entry for `spec`. Never throws for a bad file.
  ReadResult read(const EntrySpec& spec, const std::string& content_hash) const;

  /// Takes the entry's compile lock, logging at INFO if another process holds it and we wait. A
  /// holder that keeps it past `warn_after` (stopped, hung) is warned about, naming the lock file
  /// and its pid; past `give_up_after` the wait ends. nullopt (after a warning) when the lock
  /// cannot be taken: the caller compiles anyway (publication is atomic; a second compile is
  /// only wasted work).
  std::optional<FileLock> lock(
      const EntrySpec& spec, const std::string& content_hash,
      std::chrono::milliseconds warn_after = std::chrono::seconds(10),
      std::chrono::milliseconds give_up_after = std::chrono::seconds(120)) const;

  /// Publishes an entry atomically; false if it could not be saved (warned about once per root,
  /// the rest at debug level).
  bool publish(const EntrySpec& spec, const std::string& content_hash,
               const std::vector<std::uint8_t>& cubin) const;

  /// Removes one entry if present.
  void remove(const std::string& content_hash) const;

  std::vector<DiskEntryInfo> list() const;
  std::size_t clear() const;
  std::vector<DiskEntryInfo> prune(const std::function<bool(const DiskEntryInfo&)>& stale,
                                   bool dry_run) const;

 private:
  std::string shard_dir(const std::string& content_hash) const;
  // Walks the shards: an entry file goes where `drop_entry(path)` says so; with `sweep_files`,
  // lock and temp files untouched for an hour go too. Returns the entries removed.
  std::size_t walk(const std::function<bool(const std::string&)>& drop_entry,
                   bool sweep_files) const;

  std::string root_;
  bool writable_ = false;
};

}  // namespace moegemv::cache
