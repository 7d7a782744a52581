#pragma once
// Each CLI command lives in its own tools/cmd_*.cpp and registers itself on the app.
#include <CLI/CLI.hpp>

namespace moegemv::cli {

void add_models_command(CLI::App& app);
void add_prewarm_command(CLI::App& app);
void add_emit_command(CLI::App& app);
void add_bundle_command(CLI::App& app);
void add_cache_command(CLI::App& app);
void add_info_command(CLI::App& app);
void add_check_command(CLI::App& app);
void add_bench_command(CLI::App& app);

}  // namespace moegemv::cli
