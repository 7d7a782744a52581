// moegemv: the command-line tool. Each subcommand lives in its own tools/cmd_*.cpp.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string_view>

#include "jit/log.hpp"
#include "moegemv/errors.hpp"
#include "moegemv/moegemv.hpp"
#include "moegemv/options.hpp"
#include "tools/commands.hpp"

namespace {

int fail(std::string_view message) {
  // Library messages often start with "moegemv: " already.
  if (message.starts_with("moegemv: ")) message.remove_prefix(9);
  std::fprintf(stderr, "moegemv: error: %.*s\n", static_cast<int>(message.size()), message.data());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  // Logs go to stderr (the library's logger), so stdout carries only results (and --json output
  // stays parseable); the CLI only shortens their prefix.

  CLI::App app{"JIT-compiled NVFP4 MoE decode GEMVs: inspect, prewarm, bundle and check kernels",
               "moegemv"};
  app.require_subcommand(1);
  app.set_version_flag("--version", moegemv::version());
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return fmt::format("moegemv: error: {}\nRun with --help for more information.\n", e.what());
  });

  using namespace moegemv::cli;
  add_models_command(app);
  add_prewarm_command(app);
  add_emit_command(app);
  add_bundle_command(app);
  add_cache_command(app);
  add_info_command(app);
  add_check_command(app);
  add_bench_command(app);

  try {
    (void)moegemv::Options::global();  // an unreadable MOEGEMV_* value fails here, named
    moegemv::logger()->set_pattern("[%l] %v");
    app.parse(argc, argv);  // runs the chosen command's callback
  } catch (const CLI::ParseError& e) {
    return app.exit(e);  // also the silent CLI::RuntimeError a command throws after reporting
  } catch (const moegemv::Error& e) {
    return fail(e.what());
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  return 0;
}
