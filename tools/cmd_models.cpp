// `moegemv models`: the built-in model presets and the keys each needs.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "moegemv/errors.hpp"
#include "tools/commands.hpp"
#include "tools/harness/models.hpp"
#include "tools/progress.hpp"

namespace moegemv::cli {

namespace {

struct ModelsOptions {
  std::vector<std::string> models;
  int tp = 1;
  bool json = false;
};

std::vector<harness::ModelPreset> chosen(const ModelsOptions& options) {
  std::vector<harness::ModelPreset> list;
  if (options.models.empty()) {
    list = harness::presets();
  } else {
    for (const auto& name : options.models) list.push_back(harness::find_preset(name));
  }
  for (auto& preset : list) {
    try {
      preset = preset.with_tp(options.tp);
    } catch (const ArgumentError& e) {
      throw ArgumentError(
          e.argument, fmt::format("{} (for {}; --model picks presets)", e.expected, preset.name),
          e.got);
    }
  }
  return list;
}

std::vector<std::string> key_strings(const harness::ModelPreset& preset) {
  std::vector<std::string> keys;
  for (const Key& key : preset.keys()) keys.push_back(key.str());
  return keys;
}

void run(const ModelsOptions& options) {
  const auto list = chosen(options);
  if (options.json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& p : list) {
      out.push_back({{"name", p.name},
                     {"h", p.h},
                     {"i", p.i},
                     {"si", p.si},
                     {"k", p.k},
                     {"e", p.e},
                     {"tp", options.tp},
                     {"keys", key_strings(p)}});
    }
    fmt::print("{}\n", out.dump(2));
    return;
  }
  std::vector<std::vector<std::string>> rows = {{"name", "H", "I", "SI", "K", "E", "keys"}};
  for (const auto& p : list) {
    rows.push_back({p.name, std::to_string(p.h), std::to_string(p.i), std::to_string(p.si),
                    std::to_string(p.k), std::to_string(p.e),
                    fmt::format("{}", fmt::join(key_strings(p), " "))});
  }
  print_table(rows);
}

}  // namespace

void add_models_command(CLI::App& app) {
  auto options = std::make_shared<ModelsOptions>();
  CLI::App* cmd =
      app.add_subcommand("models", "List the model presets and the kernel keys they need");
  cmd->add_option("--model", options->models, "only this preset; repeatable or comma-separated")
      ->type_name("NAME")
      ->delimiter(',');
  cmd->add_option("--tp", options->tp, "tensor-parallel degree: divides I and SI");
  cmd->add_flag("--json", options->json, "print JSON instead of a table");
  cmd->callback([options] { run(*options); });
}

}  // namespace moegemv::cli
