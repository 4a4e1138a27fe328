// The one entry point of the engine: run a RunConfig to its RunSummary.
// It blocks; callers that must stay responsive run it in a worker thread or,
// as the GUI does, in a child process (`trainbench run --events -`).
#pragma once

#include <string>

#include "tb/common/expected.hpp"
#include "tb/engine/run_config.hpp"
#include "tb/runs/run_summary.hpp"

namespace tb::engine {

// The engine's result is the run store's record: one type, read back by
// every reader of summary.json.
using runs::RunState;
using runs::RunSummary;

/// Trains as configured. An Error means the run could not start (bad value,
/// unreadable data, unusable checkpoint, no CUDA); once started, every outcome
/// (completed, interrupted, oom, failed) is a RunSummary and is on disk.
[[nodiscard]] Expected<RunSummary> runTraining(const RunConfig& config);

/// What `--compile on` would run fused and what falls back to plain ops, one
/// line per pattern (`trainbench run --explain`). BadInput as runTraining's.
[[nodiscard]] Expected<std::string> explainCompiledStep(const RunConfig& config);

/// Whether the LibTorch this was built with can run on a CUDA device now.
[[nodiscard]] bool cudaAvailable();

}  // namespace tb::engine
