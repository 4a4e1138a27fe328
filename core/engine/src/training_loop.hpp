// The part of a run that touches tensors: weights, optimizer, the steps and
// their measurements. trainer.cpp validates and sets up around it, so that
// what can be checked without LibTorch is checked before any tensor exists.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "checkpoint.hpp"
#include "event_log.hpp"
#include "matmul_probe.hpp"
#include "run_directory.hpp"
#include "tb/engine/run_config.hpp"
#include "tb/engine/run_summary.hpp"
#include "token_batches.hpp"

namespace tb::engine {

/// What the loop needs; `resume` is null for a fresh start.
struct LoopInputs {
  const RunConfig* config = nullptr;
  const TokenBatches* data = nullptr;
  const Checkpoint* resume = nullptr;
  RunDirectory* directory = nullptr;
  EventLog* events = nullptr;
  int threads = 1;
  MatmulRate matmul;
  RecomputePolicy recompute;  ///< resolved (never Auto)
};

/// Runs the steps and fills status, message, steps, losses, times and memory
/// of `summary` (the caller fills the rest). Never throws.
void runTrainingLoop(const LoopInputs& inputs, RunSummary& summary,
                     std::vector<double>& stepSeconds);

}  // namespace tb::engine
