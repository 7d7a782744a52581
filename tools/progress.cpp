#include "tools/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <set>
#include <thread>

#include "jit/codegen.hpp"
#include "jit/nvrtc.hpp"
#include "moegemv/errors.hpp"
#include "runtime/device.hpp"
#include "runtime/driver.hpp"
#include "runtime/registry.hpp"
#include "tools/harness/models.hpp"

namespace moegemv::cli {

namespace {

// A one-line bar redrawn in place with '\r'. Only on a terminal: a redirected stderr (CI logs)
// would otherwise fill with carriage returns.
class ProgressBar {
 public:
  explicit ProgressBar(std::size_t total) : total_(total), enabled_(isatty(STDERR_FILENO) != 0) {
    if (enabled_) draw("");  // shows up before the first (possibly slow) entry finishes
  }
  ~ProgressBar() {
    if (enabled_) std::fputc('\n', stderr);
  }

  void tick(const cache::EntrySpec& spec, const char* source) {
    if (!enabled_) return;
    std::lock_guard lock(mutex_);
    ++done_;
    draw(fmt::format("{} {} ({})", spec.key.str(), spec.arch, source));
  }

 private:
  void draw(const std::string& last) {
    constexpr std::size_t kWidth = 30;
    const std::size_t filled = kWidth * done_ / std::max<std::size_t>(total_, 1);
    std::string line = fmt::format("\r[{:=<{}}{:<{}}] {}/{} {}", "", filled, "", kWidth - filled,
                                   done_, total_, last);
    // Pad over the tail of a longer previous line.
    const std::size_t length = line.size();
    line.resize(std::max(length, last_length_), ' ');
    last_length_ = length;
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
  }

  std::mutex mutex_;
  std::size_t total_, done_ = 0, last_length_ = 0;
  bool enabled_;
};

ArgumentError rename_argument(const ArgumentError& e, const std::string& argument) {
  return ArgumentError(argument, e.expected, e.got);
}

}  // namespace

void add_selection_options(CLI::App& command, Selection& selection) {
  command
      .add_option("--model", selection.models,
                  "a model preset (see `moegemv models`); repeatable or comma-separated")
      ->type_name("NAME")
      ->delimiter(',');
  command
      .add_option("--key", selection.keys,
                  "a key KIND:H:I:SI:K (KIND gate_up|down_combine); repeatable or comma-separated")
      ->type_name("KEY")
      ->delimiter(',');
  command
      .add_option("--tp", selection.tp,
                  "tensor-parallel degree: divides I and SI of the --model presets")
      ->check(CLI::PositiveNumber);
  command
      .add_option("-j,--jobs", selection.jobs, "worker threads (default: one per hardware thread)")
      ->check(CLI::Range(1, 1024));
}

std::vector<Key> selected_keys(const Selection& selection) {
  if (selection.models.empty() && selection.keys.empty())
    throw ArgumentError("--model/--key", "at least one --model NAME or --key KEY", "neither");
  if (selection.tp != 1 && selection.models.empty())
    throw ArgumentError("--tp", "--model presets to shard (--key keys are used as given)",
                        "--tp " + std::to_string(selection.tp) + " without --model");
  std::vector<Key> keys;
  std::set<Key> seen;
  auto add = [&](const Key& key) {
    if (seen.insert(key).second) keys.push_back(key);
  };
  for (const auto& name : selection.models)
    for (const Key& key : harness::find_preset(name).with_tp(selection.tp).keys()) add(key);
  for (const auto& text : selection.keys) add(Key::parse(text, "--key"));
  return keys;
}

std::vector<std::string> parse_archs(const std::string& text) {
  std::vector<std::string> archs;
  for (std::size_t start = 0; start <= text.size();) {
    std::size_t end = std::min(text.find(',', start), text.size());
    std::string arch = text.substr(start, end - start);
    start = end + 1;
    if (arch.empty()) continue;
    try {
      jit::validate_arch(arch);
      jit::check_arch_supported(arch);
    } catch (const ArgumentError& e) {
      throw rename_argument(e, "--arch");
    }
    if (std::find(archs.begin(), archs.end(), arch) == archs.end()) archs.push_back(arch);
  }
  if (archs.empty())
    throw ArgumentError("--arch", "a list such as sm_90,sm_100a", "'" + text + "'");
  return archs;
}

std::vector<std::string> archs_or_device(const std::string& text) {
  if (!text.empty()) return parse_archs(text);
  if (!driver::available())
    throw Error(fmt::format(
        "--arch is required: there is no usable GPU to take the arch from ({}); pass e.g. "
        "--arch sm_90,sm_100a",
        driver::unavailable_reason()));
  return {driver::device_info(0).arch()};
}

std::vector<cache::EntrySpec> make_specs(const std::vector<Key>& keys,
                                         const std::vector<std::string>& archs) {
  std::vector<cache::EntrySpec> specs;
  for (const Key& key : keys)
    for (const auto& arch : archs) specs.push_back(detail::make_spec(key, arch));
  return specs;
}

std::string bundle_entry_unusable(const cache::Bundle& bundle, const cache::BundleEntry& entry) {
  cache::EntrySpec spec;
  try {
    spec = detail::make_spec(Key::parse(entry.key), entry.arch);
  } catch (const std::exception& e) {
    return fmt::format("this build cannot make {} for {}: {}", entry.key, entry.arch, e.what());
  }
  return cache::mismatch_reason(bundle, entry, spec);
}

std::vector<Fetched> fetch_all(const std::vector<cache::EntrySpec>& specs, int jobs) {
  cache::CubinStore* opened = nullptr;
  try {
    opened = &detail::store();  // loads MOEGEMV_BUNDLE: its only way to fail
  } catch (const CacheError& e) {
    throw Error(fmt::format("MOEGEMV_BUNDLE: {}", e.what()));
  }
  cache::CubinStore& store = *opened;
  std::vector<Fetched> results(specs.size());
  ProgressBar bar(specs.size());
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < specs.size();) {
      const cache::EntrySpec& spec = specs[i];
      try {
        results[i].cubin = store.get(spec, [&] { return detail::compile_spec(spec); });
      } catch (const std::exception& e) {
        results[i].error = e.what();
      }
      bar.tick(spec, results[i].source());
    }
  };
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t threads =
      std::min<std::size_t>(jobs > 0 ? static_cast<std::size_t>(jobs) : hardware, specs.size());
  {
    std::vector<std::jthread> pool;
    for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
  }  // joins the pool: every result is written
  return results;
}

void print_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()), 0);
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      line += c + 1 < row.size() ? fmt::format("{:<{}}  ", row[c], widths[c]) : row[c];
    }
    fmt::print("{}\n", line);
  }
}

std::string human_bytes(std::uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  if (bytes < 1024 * 1024) return fmt::format("{:.1f} KiB", bytes / 1024.0);
  return fmt::format("{:.1f} MiB", bytes / (1024.0 * 1024.0));
}

}  // namespace moegemv::cli
