// `moegemv bundle create|list|verify`: many cubins in one file, shipped with a deployment so that
// no process compiles at run time (MOEGEMV_BUNDLE=FILE) and none needs NVRTC. An entry serves
// any process that generates the same source and options, whatever its NVRTC (cache::serves);
// `bundle list` shows which entries this build takes, `bundle verify` fails on those it would skip.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <tuple>

#include "cache/bundle.hpp"
#include "jit/codegen.hpp"
#include "jit/nvrtc.hpp"
#include "jit/templates.hpp"
#include "runtime/device.hpp"
#include "runtime/driver.hpp"
#include "runtime/module.hpp"
#include "tools/commands.hpp"
#include "tools/progress.hpp"

namespace moegemv::cli {

namespace {

struct CreateOptions {
  Selection selection;
  std::string output;
};

void create(const CreateOptions& options) {
  const auto specs =
      make_specs(selected_keys(options.selection), parse_archs(options.selection.archs));
  const auto results = fetch_all(specs, options.selection.jobs);
  cache::BundleWriter writer;
  int failed = 0, compiled = 0;
  std::uint64_t bytes = 0;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    if (!results[i].cubin) {
      fmt::print(stderr, "moegemv: error: {} for {}: {}\n", specs[i].key.str(), specs[i].arch,
                 results[i].error);
      ++failed;
      continue;
    }
    compiled += results[i].cubin->origin == cache::Origin::kCompiled;
    bytes += results[i].cubin->bytes.size();
    // A cubin another NVRTC built (served by a bundle) is recorded as that NVRTC's.
    cache::EntrySpec as_built = specs[i];
    if (!results[i].cubin->built_by.empty()) as_built.nvrtc_version = results[i].cubin->built_by;
    writer.add(as_built, results[i].cubin->bytes);
  }
  if (failed > 0) {
    fmt::print(stderr, "moegemv: error: {} of {} entries failed; {} not written\n", failed,
               specs.size(), options.output);
    throw CLI::RuntimeError(1);
  }
  writer.write(options.output);
  fmt::print("wrote {}: {} entries ({} compiled now), {} of cubins\n", options.output,
             writer.size(), compiled, human_bytes(bytes));
}

bool template_current(const cache::BundleEntry& entry) {
  return entry.template_hash == jit::templates_hash();
}

// The entries this build would not load (same test as the runtime), with why.
std::vector<std::string> unusable_entries(const cache::Bundle& bundle) {
  std::vector<std::string> lines;
  for (const auto& e : bundle.entries()) {
    const std::string why = bundle_entry_unusable(bundle, e);
    if (!why.empty())
      lines.push_back(fmt::format("{} {}: not used by this build: {}", e.key, e.arch, why));
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

// Sorted by key, then arch (the file orders them by content hash).
std::vector<cache::BundleEntry> sorted_entries(const cache::Bundle& bundle) {
  auto entries = bundle.entries();
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    return std::tie(a.key, a.arch) < std::tie(b.key, b.arch);
  });
  return entries;
}

void list(const std::string& path, bool json) {
  const cache::Bundle bundle = cache::Bundle::open(path);
  if (json) {
    nlohmann::ordered_json entries = nlohmann::ordered_json::array();
    for (const auto& e : sorted_entries(bundle)) {
      const std::string why = bundle_entry_unusable(bundle, e);
      entries.push_back({{"key", e.key},
                         {"arch", e.arch},
                         {"nvrtc", e.nvrtc_version},
                         {"template_hash", e.template_hash},
                         {"template_current", template_current(e)},
                         {"usable", why.empty()},
                         {"unusable_reason", why},
                         {"content_hash", e.content_hash},
                         {"size", e.size},
                         {"checksum", fmt::format("{:016x}", e.checksum)}});
    }
    nlohmann::ordered_json out = {{"path", path},
                                  {"format_version", bundle.format_version()},
                                  {"build_template_hash", jit::templates_hash()},
                                  {"entries", std::move(entries)}};
    fmt::print("{}\n", out.dump(2));
    return;
  }
  std::vector<std::vector<std::string>> rows = {
      {"key", "arch", "nvrtc", "template hash", "usable", "size", "checksum"}};
  std::vector<std::string> reasons;
  for (const auto& e : sorted_entries(bundle)) {
    const std::string why = bundle_entry_unusable(bundle, e);
    if (!why.empty()) reasons.push_back(fmt::format("{} {}: {}", e.key, e.arch, why));
    rows.push_back({e.key, e.arch, e.nvrtc_version, e.template_hash, why.empty() ? "yes" : "no",
                    std::to_string(e.size), fmt::format("{:016x}", e.checksum)});
  }
  print_table(rows);
  for (const auto& line : reasons) fmt::print("not usable: {}\n", line);
  fmt::print("{}: format v{}, {} entries; this build: template hash {}, NVRTC {}\n", path,
             bundle.format_version(), bundle.entries().size(), jit::templates_hash(),
             jit::nvrtc_version());
}

// Loads every entry built for the GPU's arch; returns one line per entry that does not load.
std::vector<std::string> load_on_device(const cache::Bundle& bundle, std::size_t* loaded) {
  std::vector<std::string> failures;
  const driver::DeviceInfo device = driver::device_info(0);
  driver::PrimaryContext context(0);
  driver::ScopedContext current(context.get());
  for (const auto& entry : bundle.entries()) {
    if (entry.arch != device.arch()) continue;
    auto cubin = bundle.find(entry.content_hash);
    if (!cubin) continue;  // damaged: already a checksum failure
    try {
      driver::Module module(*cubin);
      module.function(jit::kernel_name(Key::parse(entry.key)).c_str());
      ++*loaded;
    } catch (const std::exception& e) {
      failures.push_back(fmt::format("{} {}: does not load on {}: {}", entry.key, entry.arch,
                                     device.name, e.what()));
    }
  }
  return failures;
}

void verify(const std::string& path) {
  const cache::Bundle bundle = cache::Bundle::open(path);
  cache::VerifyReport report = bundle.verify();
  if (bundle.format_version() != static_cast<std::uint32_t>(cache::kFormatVersion)) {
    report.failures.push_back(fmt::format("format v{}: this build reads only v{}",
                                          bundle.format_version(), cache::kFormatVersion));
  }
  fmt::print("{}: {} entries, checksums of {} checked\n", path, bundle.entries().size(),
             report.checked);
  // An entry this build would skip is a failure: a deployment relying on the bundle would
  // compile (or, with MOEGEMV_DISABLE_JIT=1, fail) at run time.
  if (bundle.format_version() == static_cast<std::uint32_t>(cache::kFormatVersion)) {
    const auto unusable = unusable_entries(bundle);  // (another format: said once above)
    report.failures.insert(report.failures.end(), unusable.begin(), unusable.end());
  }
  if (driver::available()) {
    std::size_t loaded = 0;
    auto failures = load_on_device(bundle, &loaded);
    report.failures.insert(report.failures.end(), failures.begin(), failures.end());
    fmt::print("loaded {} entries for {} on GPU 0\n", loaded, driver::device_info(0).arch());
  } else {
    fmt::print("no usable GPU ({}): entries not loaded\n", driver::unavailable_reason());
  }
  for (const auto& failure : report.failures) fmt::print(stderr, "moegemv: error: {}\n", failure);
  if (!report.ok()) throw CLI::RuntimeError(1);
  fmt::print("ok\n");
}

}  // namespace

void add_bundle_command(CLI::App& app) {
  CLI::App* bundle = app.add_subcommand("bundle", "Create, list and verify kernel bundles");
  bundle->require_subcommand(1);

  auto create_options = std::make_shared<CreateOptions>();
  CLI::App* c = bundle->add_subcommand("create", "Write the kernels of models/keys to a bundle");
  c->add_option("-o,--output", create_options->output, "bundle file to write")
      ->required()
      ->type_name("FILE");
  add_selection_options(*c, create_options->selection);
  c->add_option("--arch", create_options->selection.archs,
                "comma-separated archs, e.g. sm_90,sm_100a")
      ->required()
      ->type_name("ARCHS");
  c->callback([create_options] { create(*create_options); });

  auto list_path = std::make_shared<std::string>();
  auto list_json = std::make_shared<bool>(false);
  CLI::App* l = bundle->add_subcommand("list", "List the entries of a bundle");
  l->add_option("FILE", *list_path, "bundle file")->required()->check(CLI::ExistingFile);
  l->add_flag("--json", *list_json, "print JSON instead of a table");
  l->callback([list_path, list_json] { list(*list_path, *list_json); });

  auto verify_path = std::make_shared<std::string>();
  CLI::App* v = bundle->add_subcommand(
      "verify", "Check every entry's checksum and, with a GPU, that its entries load");
  v->add_option("FILE", *verify_path, "bundle file")->required()->check(CLI::ExistingFile);
  v->callback([verify_path] { verify(*verify_path); });
}

}  // namespace moegemv::cli
