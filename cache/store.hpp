#pragma once
// Where cubins come from, in order: bundles -> disk cache -> compile (the in-memory level sits in
// the runtime registry, above this). One CubinStore per process is the normal use.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "moegemv/key.hpp"
#include "moegemv/options.hpp"

namespace moegemv::cache {

/// Bumped whenever the entry or bundle format changes (it is part of the disk path and every key).
inline constexpr int kFormatVersion = 1;

/// Everything a cubin's identity is made of. Content only: no paths, hosts or environment.
struct EntrySpec {
  Key key;
  std::string arch;                  ///< "sm_90", "sm_100a", ...
  std::string source;                ///< generated CUDA source (embeds the templates hash)
  std::vector<std::string> options;  ///< NVRTC options
  std::string nvrtc_version;         ///< "13.0"
  std::string template_hash;         ///< jit::templates_hash()

  /// 32 hex digits (XXH3-128) over all fields above plus kFormatVersion.
  std::string content_hash() const;
};

enum class Origin { kBundle, kDisk, kCompiled };
const char* origin_name(Origin origin);  // "bundle" | "cache" | "compiled"

struct Cubin {
  std::vector<std::uint8_t> bytes;
  Origin origin = Origin::kCompiled;
  double ms = 0;  ///< time spent getting it (compile time when compiled)
  /// It outlives this process: read from a bundle or the disk cache, or compiled and saved to
  /// the disk cache. False: compiled and kept in memory only (no writable cache, or the save
  /// failed; warned about), so the next process compiles it again.
  bool saved = true;
  /// The content hash of the bundle entry it came from (kBundle only): the spec's own, or that of
  /// the same source built by another NVRTC.
  std::string entry_hash{};
  /// The NVRTC version of the bundle entry it came from (kBundle only; may differ from the
  /// spec's): what a bundle written from it must record.
  std::string built_by{};
};

using CompileFn = std::function<std::vector<std::uint8_t>()>;

struct DiskEntryInfo {
  std::string path, key, arch, content_hash, template_hash, nvrtc_version;
  std::uint64_t bytes = 0;
};

/// The disk cache's root that `options` name (options.cache_dir + "/v<format>"), or "" for none;
/// nothing is created or checked (the CLI's read-only commands look before they open).
std::string disk_root_path(const Options& options);

class CubinStore {
 public:
  /// Opens (creating if needed) the cache root from options and loads options.bundles.
  explicit CubinStore(const Options& options);
  ~CubinStore();
  CubinStore(const CubinStore&) = delete;
  CubinStore& operator=(const CubinStore&) = delete;

  /// Adds a bundle file to the lookup (after those already added). Throws CacheError if unreadable.
  void add_bundle(const std::string& path);

  /// Bundle entries built by this NVRTC, then disk, then bundle entries of the same source built
  /// by another NVRTC (cache::serves), then `compile` (under a per-entry flock, published atomically). When
  /// options.disable_jit is set, a miss throws JitDisabledError naming the key and the fix.
  /// `allow_compile == false` has the same effect for one call (used during graph capture).
  Cubin get(const EntrySpec& spec, const CompileFn& compile, bool allow_compile = true);

  /// For a cubin that `get` returned but the driver could not load: logs a warning and removes
  /// its disk entry, or skips its bundle entry in this store, so that the next `get` looks
  /// further (another bundle entry for the same source, the disk) or recompiles it.
  void discard(const EntrySpec& spec, const Cubin& cubin, const std::string& reason);

  /// Disk-cache housekeeping for the CLI.
  const std::string& root() const;
  bool writable() const;
  std::vector<DiskEntryInfo> list() const;
  std::size_t clear();  ///< removes every entry, returns how many
  /// Removes the entries `stale` picks (none if dry_run) and, like clear, lock and temp files
  /// untouched for an hour; returns the entries picked.
  std::vector<DiskEntryInfo> prune(const std::function<bool(const DiskEntryInfo&)>& stale,
                                   bool dry_run);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace moegemv::cache
