#pragma once
// What `prewarm` and `bundle create` share: choosing (key, arch) entries from --model/--key/--tp/
// --arch, fetching them through the cubin store on N threads with a progress bar, and the
// plain-text tables every command prints.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cache/bundle.hpp"
#include "cache/store.hpp"
#include "moegemv/key.hpp"

namespace moegemv::cli {

struct Selection {
  std::vector<std::string> models;
  std::vector<std::string> keys;
  int tp = 1;
  std::string archs;  ///< "sm_90,sm_100a"; empty when --arch was not given
  int jobs = 0;       ///< 0 = one per hardware thread
};

/// Adds --model, --key, --tp and -j to `command`, bound to `selection` (--arch is the caller's:
/// required or defaulted differently per command).
void add_selection_options(CLI::App& command, Selection& selection);

/// The keys of the --model presets (sharded by --tp) followed by the --key keys, in order and
/// without duplicates. Throws ArgumentError naming the option at fault, or when neither was given.
std::vector<Key> selected_keys(const Selection& selection);

/// Splits "sm_90,sm_100a" and checks each arch against moegemv's and NVRTC's lists; errors name
/// --arch.
std::vector<std::string> parse_archs(const std::string& text);

/// parse_archs(text), or the arch of device 0 when text is empty. Without a usable GPU an empty
/// text is an error saying --arch is required.
std::vector<std::string> archs_or_device(const std::string& text);

/// One entry spec per (key, arch), keys outermost. Generating the sources here (cheap) makes a
/// key that cannot be generated an argument error before any compile starts.
std::vector<cache::EntrySpec> make_specs(const std::vector<Key>& keys,
                                         const std::vector<std::string>& archs);

/// "" if this build would load `entry` of `bundle` (the runtime's test: the entry's content hash
/// against this build's spec for its key and arch, MOEGEMV_TUNE included); else why not.
std::string bundle_entry_unusable(const cache::Bundle& bundle, const cache::BundleEntry& entry);

struct Fetched {
  std::optional<cache::Cubin> cubin;  ///< nullopt when getting it failed
  std::string error;                  ///< why it failed
  const char* source() const { return cubin ? cache::origin_name(cubin->origin) : "failed"; }
};

/// Gets every spec through detail::store() (bundles, disk cache, else NVRTC) on `jobs` threads
/// (0 = hardware concurrency). One entry's failure is recorded in its result, never thrown.
/// Results are in the order of `specs`. A progress bar is drawn on stderr if it is a terminal.
std::vector<Fetched> fetch_all(const std::vector<cache::EntrySpec>& specs, int jobs);

/// Prints rows with every column padded to its widest cell; rows[0] is the header.
void print_table(const std::vector<std::vector<std::string>>& rows);

/// "1.2 MiB"
std::string human_bytes(std::uint64_t bytes);

}  // namespace moegemv::cli
