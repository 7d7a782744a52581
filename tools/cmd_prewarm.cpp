// `moegemv prewarm`: compiles the kernels a deployment needs into the disk cache ahead of time,
// so that no process compiles on its first decode step.
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "runtime/registry.hpp"
#include "tools/commands.hpp"
#include "tools/progress.hpp"

namespace moegemv::cli {

namespace {

struct PrewarmOptions {
  Selection selection;
  bool json = false;
};

struct Counts {
  int compiled = 0, cache_hits = 0, bundle_hits = 0, failed = 0;
  int unsaved = 0;  // compiled but not saved to the disk cache: prewarm's purpose missed
};

Counts count(const std::vector<Fetched>& results) {
  Counts c;
  for (const auto& r : results) {
    if (!r.cubin) {
      ++c.failed;
      continue;
    }
    c.unsaved += !r.cubin->saved;
    switch (r.cubin->origin) {
      case cache::Origin::kCompiled:
        ++c.compiled;
        break;
      case cache::Origin::kDisk:
        ++c.cache_hits;
        break;
      case cache::Origin::kBundle:
        ++c.bundle_hits;
        break;
    }
  }
  return c;
}

void print_json(const std::vector<cache::EntrySpec>& specs, const std::vector<Fetched>& results,
                const Counts& c) {
  nlohmann::ordered_json entries = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < specs.size(); ++i) {
    nlohmann::ordered_json e = {
        {"key", specs[i].key.str()}, {"arch", specs[i].arch}, {"source", results[i].source()}};
    if (results[i].cubin) {
      e["ms"] = results[i].cubin->ms;
      e["saved"] = results[i].cubin->saved;
    } else {
      e["error"] = results[i].error;
    }
    entries.push_back(std::move(e));
  }
  // clang-format off
  nlohmann::ordered_json out = {{"compiled", c.compiled},
                                {"cache_hits", c.cache_hits},
                                {"bundle_hits", c.bundle_hits},
                                {"failed", c.failed},
                                {"unsaved", c.unsaved},
                                {"cache", detail::store().root()},
                                {"entries", std::move(entries)}};
  // clang-format on
  fmt::print("{}\n", out.dump(2));
}

void print_text(const std::vector<cache::EntrySpec>& specs, const std::vector<Fetched>& results,
                const Counts& c) {
  std::vector<std::vector<std::string>> rows = {{"source", "key", "arch", "ms", "bytes"}};
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const auto& r = results[i];
    rows.push_back({r.cubin && !r.cubin->saved ? "compiled, NOT SAVED" : r.source(),
                    specs[i].key.str(), specs[i].arch,
                    r.cubin ? fmt::format("{:.1f}", r.cubin->ms) : "-",
                    r.cubin ? std::to_string(r.cubin->bytes.size()) : "-"});
  }
  print_table(rows);
  fmt::print("{} entries: {} compiled, {} cache hits, {} bundle hits, {} failed (cache: {})\n",
             specs.size(), c.compiled, c.cache_hits, c.bundle_hits, c.failed,
             detail::store().root());
}

void run(const PrewarmOptions& options) {
  const auto keys = selected_keys(options.selection);
  const auto archs = archs_or_device(options.selection.archs);
  const auto specs = make_specs(keys, archs);
  const auto results = fetch_all(specs, options.selection.jobs);
  const Counts c = count(results);
  if (options.json) {
    print_json(specs, results, c);
  } else {
    print_text(specs, results, c);
  }
  for (std::size_t i = 0; i < specs.size(); ++i) {
    if (!results[i].cubin)
      fmt::print(stderr, "moegemv: error: {} for {}: {}\n", specs[i].key.str(), specs[i].arch,
                 results[i].error);
  }
  if (c.unsaved > 0) {
    // The kernels compiled but only into this process's memory: the cache a prewarm is for is
    // missing them (the warning above says why), so the deployment would compile them again.
    const auto& store = detail::store();
    fmt::print(stderr,
               "moegemv: error: {} of {} entries compiled but not saved to the cache {} ({}); "
               "set MOEGEMV_CACHE_DIR to a writable directory with free space\n",
               c.unsaved, specs.size(), store.root().empty() ? "(none)" : store.root(),
               store.writable() ? "writing failed, see the warning above" : "not writable");
  }
  if (c.failed > 0)
    fmt::print(stderr, "moegemv: error: {} of {} entries failed\n", c.failed, specs.size());
  if (c.failed > 0 || c.unsaved > 0) throw CLI::RuntimeError(1);
}

}  // namespace

void add_prewarm_command(CLI::App& app) {
  auto options = std::make_shared<PrewarmOptions>();
  CLI::App* cmd = app.add_subcommand(
      "prewarm", "Compile the kernels of the given models/keys into the disk cache (in parallel)");
  add_selection_options(*cmd, options->selection);
  cmd->add_option("--arch", options->selection.archs,
                  "comma-separated archs, e.g. sm_90,sm_100a (default: the GPU's; required "
                  "without a GPU)")
      ->type_name("ARCHS");
  cmd->add_flag("--json", options->json, "print one JSON object on stdout");
  cmd->callback([options] { run(*options); });
}

}  // namespace moegemv::cli
