// What one training run is asked to do: a plain struct the CLI fills from its
// flags and the GUI from its form. Nothing here needs LibTorch; the trainer
// turns it into tensors behind its own header.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "tb/common/expected.hpp"
#include "tb/common/stop_token.hpp"
#include "tb/runs/run_event.hpp"
#include "tb/engine/launch_env.hpp"
#include "tb/engine/model.hpp"
#include "tb/model/recompute_modules.hpp"

namespace tb::engine {

/// Where training tokens come from.
enum class DataKind {
  Random,     ///< seeded uniform tokens: throughput runs (the default)
  Synthetic,  ///< a learnable sequence task: the loss must fall
  TextFile,   ///< a plain text file as byte tokens, with a held-out split
};

/// The data of a run; `file` is used only for DataKind::TextFile.
struct DataChoice {
  DataKind kind = DataKind::Random;
  std::filesystem::path file;
};

/// "random", "synthetic", or any other text as a file path.
[[nodiscard]] DataChoice parseDataChoice(std::string_view text);

enum class Device { Cpu, Cuda };

/// "cpu" or "cuda"; BadInput names anything else.
[[nodiscard]] Expected<Device> parseDevice(std::string_view text);
[[nodiscard]] std::string_view toString(Device device);

/// Which activations are recomputed in backward instead of kept.
enum class RecomputeMode {
  None,       ///< keep everything autograd saves
  Selective,  ///< recompute parts of every block (`modules`; plain: the attention core)
  Layers,     ///< the first `layers` blocks fully recomputed, the rest keep everything
  Full,       ///< every block recomputed (what gradient_checkpointing=True does)
  Auto,       ///< the memory planner's choice for the run's memory budget
};

/// A recompute policy as `--recompute` spells it: none, selective,
/// selective:MODULES, full, layers:K, layers:K+selective[:MODULES] or auto.
/// K is checked against the model's layers when the run starts.
struct RecomputePolicy {
  RecomputeMode mode = RecomputeMode::None;
  std::int64_t layers = 0;  ///< K, only for RecomputeMode::Layers
  /// model::RecomputeModule bits rebuilt in every block (Selective; 0 reads
  /// as core_attn, the plain spelling) or in the blocks past K (Layers).
  std::uint8_t modules = 0;

  friend bool operator==(const RecomputePolicy&, const RecomputePolicy&) = default;
};

/// The modules a block that is not fully recomputed rebuilds under `policy`.
[[nodiscard]] std::uint8_t selectiveModules(const RecomputePolicy& policy);

/// Parses a --recompute value; BadInput names anything else.
[[nodiscard]] Expected<RecomputePolicy> parseRecomputePolicy(std::string_view text);
[[nodiscard]] std::string toString(const RecomputePolicy& policy);

/// The switches of the tuned (AC2) runtime. Each changes how fast a step runs,
/// never its math, so the ablation can show what each one buys; the stock
/// runtime (what Base measures) has them all off.
struct RuntimeOptions {
  bool threads = true;   ///< one pool of physical-core threads, owned by the matmul path's library
  bool matmul = true;    ///< matrix products on the path the start-up probe measured fastest
  bool lazySync = true;  ///< loss and gradient norm read back at log intervals only
  bool flatGradients = true;  ///< parameters, gradients and AdamW state in flat buffers
  bool gqaInPlace = true;     ///< attention reads each KV head in place instead of repeating it
  bool keepMemory = true;     ///< freed host memory stays mapped for the next step's tensors

  friend bool operator==(const RuntimeOptions&, const RuntimeOptions&) = default;
};

[[nodiscard]] RuntimeOptions stockRuntime();
[[nodiscard]] RuntimeOptions tunedRuntime();

/// `--runtime`: "stock" or "tuned", optionally followed by switch changes, as
/// in "tuned,-matmul" or "stock,+gqa". Switch names: threads, matmul, sync,
/// flat-grads, gqa, alloc. BadInput names an unknown word.
[[nodiscard]] Expected<RuntimeOptions> parseRuntime(std::string_view text);
/// The shortest spelling parseRuntime reads back to `options`.
[[nodiscard]] std::string toString(const RuntimeOptions& options);

/// Receives each event as one JSON document without a trailing newline.
using runs::EventSink;

/// This process as one worker of a data-parallel group: each rank trains
/// model.batch rows of a global batch of worldSize x model.batch and the
/// gradients are averaged, so the run is one run of the global batch.
struct DataParallel {
  LaunchEnv launch;                           ///< from the torchrun environment
  std::chrono::milliseconds timeout{300000};  ///< --dist-timeout: every collective's deadline
  double bucketMiB = 25.0;  ///< --bucket-mb: gradient bucket cap; 0: one all-reduce after backward
  /// --zero: 0 keeps AdamW's moments whole on every rank; 1 shards them
  /// (each rank updates its shard of the flat buffer, the weights are then
  /// gathered). Needs the tuned runtime's flat buffers.
  int zeroStage = 0;
};

/// One training run.
struct RunConfig {
  ModelConfig model;
  std::int64_t steps = 20;              ///< the step to stop after (counted from 0 on resume too)
  std::uint64_t seed = 1234;            ///< weights and data
  int threads = 0;                      ///< intra-op threads; 0 = the runtime's default
  std::uint64_t memoryBudgetBytes = 0;  ///< CPU bytes an allocation may not pass; 0 = none
  RecomputePolicy recompute;            ///< Auto plans against memoryBudgetBytes
  DataChoice data;
  Device device = Device::Cpu;
  RuntimeOptions runtime;                    ///< tuned (AC2) unless asked otherwise
  bool compile = false;                      ///< the compiled step: fused operators (CompilerOpt)
  std::int64_t logEvery = 10;                ///< with lazySync, losses are read back every N steps
  std::int64_t seqMin = 0;                   ///< per-step sequence length range; 0 = model.seq
  std::int64_t seqMax = 0;                   ///< (both 0: every step uses model.seq)
  EventSink events;                          ///< optional; events.jsonl is written either way
  std::filesystem::path runDir;              ///< empty: a new directory under the run store
  std::int64_t saveEvery = 0;                ///< checkpoint every N steps; 0 = never
  std::filesystem::path resumeDir;           ///< a run directory (or its checkpoint) to continue
  StopToken stop;                            ///< polled before each step
  std::optional<DataParallel> dataParallel;  ///< unset: one process
};

}  // namespace tb::engine
