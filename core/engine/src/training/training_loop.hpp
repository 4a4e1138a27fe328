// The part of a run that touches tensors: weights, optimizer, the steps and
// their measurements. trainer.cpp validates and sets up around it (threads,
// matmul probe, operators), so that what can be checked without LibTorch is
// checked before any tensor exists.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "distributed/communicator.hpp"
#include "model/decoder_ops.hpp"
#include "training/checkpoint.hpp"
#include "tb/runs/run_directory.hpp"
#include "tb/engine/run_config.hpp"
#include "tb/engine/trainer.hpp"
#include "training/token_batches.hpp"

namespace tb::engine {

/// What the loop needs; `resume` is null for a fresh start.
struct LoopInputs {
  const RunConfig* config = nullptr;
  const TokenBatches* data = nullptr;
  const Checkpoint* resume = nullptr;
  runs::RunDirectory* directory = nullptr;
  runs::RunEventLog* events = nullptr;
  const DecoderOps* ops = nullptr;  ///< reference or compiled, on the chosen matmul path
  bool fusedUpdate = false;         ///< flat buffers updated by fused::clippedAdamW
  RecomputePolicy recompute;        ///< resolved (never Auto)
  /// Data parallelism: null for one process. The data is this rank's shard.
  Communicator* communicator = nullptr;
  std::int64_t bucketBytes = 0;  ///< gradient bucket cap; 0: one all-reduce
  int zeroStage = 0;             ///< 1: AdamW's moments sharded over the ranks
};

/// What one step measured: its wall time and the tokens it trained on (all
/// ranks' together under data parallelism).
struct StepRecord {
  double seconds = 0.0;
  std::int64_t tokens = 0;
  /// Data parallelism: the part of `seconds` spent waiting on collectives
  /// after backward (the stop agreement and the gradient buckets).
  std::optional<double> commWaitSeconds;
  /// CPU time of the whole process during the step (every thread's).
  double cpuSeconds = 0.0;
};

/// Runs the steps and fills status, message, steps, losses and memory of
/// `summary` (the caller fills the rest). Never throws.
void runTrainingLoop(const LoopInputs& inputs, RunSummary& summary,
                     std::vector<StepRecord>& records);

}  // namespace tb::engine
