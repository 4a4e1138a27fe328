// What `memory` and `plan` share: the flags that describe a training job for
// the predictor, their resolution into a PredictionInput, the stored
// calibration for the chosen profile, and the --gpu-memory value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "model_flags.hpp"
#include "tb/common/expected.hpp"
#include "tb/memory/calibration.hpp"
#include "tb/memory/predictor.hpp"

namespace CLI {
class App;
}

namespace tb::cli {

/// Flags common to `memory` and `plan`.
struct PredictionFlags {
  ModelFlags model;
  ParallelFlags parallel;
  std::string profile = "engine";
  std::string gpuMemory;        ///< GiB as typed; empty when not given
  std::string compile = "off";  ///< on|off: the engine's compiled step
  std::string runtime;          ///< as `run --runtime` spells it; empty: tuned, run's default
  std::string frameworkVersion = "current";  ///< 2024-12|2025-06|current (torchtitan's loss)
  bool float8 = false;                       ///< torchtitan's float8 linears
  bool noCalibration = false;
  bool json = false;
};

/// A resolved job, with the profile's stored correction when one exists.
struct ResolvedPrediction {
  memory::PredictionInput input;
  std::optional<memory::Calibration> calibration;
  /// The engine runtime predicted, spelled as `run --runtime` takes it;
  /// empty for the cluster profiles.
  std::string runtime;
};

/// Adds MODEL-FLAGS, PARALLEL-FLAGS, --profile, --compile, --runtime,
/// --framework-version, --float8, --gpu-memory, --no-calibration, --json.
/// `gpuMemoryHelp` is the command's own help for --gpu-memory: one command
/// needs it, another only checks the prediction against it.
void addPredictionFlags(CLI::App& command, PredictionFlags& flags,
                        const std::string& gpuMemoryHelp);

/// Applies `runtime`, spelled as `run --runtime` takes it (empty: tuned, run's
/// default), to an engine-profile input and returns its spelling.
[[nodiscard]] Expected<std::string> applyRuntime(const std::string& runtime,
                                                 memory::PredictionInput& input);

/// Resolves the flags; the calibration file is read unless --no-calibration.
[[nodiscard]] Expected<ResolvedPrediction> resolvePrediction(const PredictionFlags& flags);

/// --gpu-memory GIB as bytes (GiB = 2^30 bytes); the error quotes the value.
[[nodiscard]] Expected<std::uint64_t> parseGpuMemory(const std::string& text);

}  // namespace tb::cli
