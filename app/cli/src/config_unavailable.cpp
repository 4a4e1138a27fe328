// `config`, `validate` and `ablation` in a build without core/config (TB_WITH_CONFIG=OFF:
// no yaml-cpp, as on the GPU machine of tests/gpu/run-on-gpu.sh).
#include "command.hpp"

namespace tb::cli {
namespace {

constexpr const char* kWhy = "TB_WITH_CONFIG=OFF: core/config needs yaml-cpp";

}  // namespace

RegisteredCommand registerConfigCommand(CLI::App& app) {
  return registerUnavailableCommand(app, "config", "Generate a release's launch artifacts", kWhy);
}

RegisteredCommand registerValidateCommand(CLI::App& app) {
  return registerUnavailableCommand(app, "validate", "Check training configuration files", kWhy);
}

RegisteredCommand registerAblationCommand(CLI::App& app) {
  return registerUnavailableCommand(app, "ablation", "Plan the ablation's jobs for a cluster",
                                    kWhy);
}

}  // namespace tb::cli
