// `moegemv emit`: the generated CUDA source of one key, as NVRTC would compile it.
#include <fmt/format.h>

#include <memory>

#include "jit/codegen.hpp"
#include "moegemv/errors.hpp"
#include "tools/commands.hpp"

namespace moegemv::cli {

namespace {

struct EmitOptions {
  std::string key;
  std::string arch = "sm_90";
};

void run(const EmitOptions& options) {
  const Key key = Key::parse(options.key, "KEY");
  try {
    jit::validate_arch(options.arch);
  } catch (const ArgumentError& e) {
    throw ArgumentError("--arch", e.expected, e.got);
  }
  fmt::print("{}", jit::generate_source(key, options.arch));
}

}  // namespace

void add_emit_command(CLI::App& app) {
  auto options = std::make_shared<EmitOptions>();
  CLI::App* cmd = app.add_subcommand("emit", "Print the generated CUDA source of a key");
  cmd->add_option("KEY", options->key, "KIND:H:I:SI:K with KIND gate_up or down_combine")
      ->required();
  cmd->add_option("--arch", options->arch, "target arch (sm_90, sm_100a, sm_103a, sm_120a)")
      ->capture_default_str();
  cmd->callback([options] { run(*options); });
}

}  // namespace moegemv::cli
