// MODEL-FLAGS and PARALLEL-FLAGS of the CLI contract, declared once so that
// `memory`, `plan`, `run` and `benchmark` spell and check them the same way.
// Values are validated after parsing (by tb::model and tb::memory), so a bad
// value gets the house message naming it and exit code 2.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tb/common/expected.hpp"
#include "tb/memory/memory_options.hpp"
#include "tb/model/model_config.hpp"

namespace CLI {
class App;
}

namespace tb::cli {

/// --model and the per-field overrides.
struct ModelFlags {
  std::string model = "tiny";
  model::ModelOverrides overrides;
};

/// --dp --tp --pp --zero --dtype, plus the two layout switches of the predictor.
struct ParallelFlags {
  std::int64_t dp = 1;
  std::int64_t tp = 1;
  std::int64_t pp = 1;
  std::int64_t cp = 1;
  int zero = 0;
  std::string dtype;      ///< empty: the profile's default (fp32 engine, bf16 clusters)
  std::string attention;  ///< empty: the profile's default (eager engine, flash clusters)
  bool sequenceParallel = false;
  bool asyncTp = false;
};

/// Adds --model, --vocab, --dim, --layers, --heads, --kv-heads, --ffn, --seq,
/// --batch (alias --micro-batch).
void addModelFlags(CLI::App& command, ModelFlags& flags);

/// The preset with the overrides applied, validated.
[[nodiscard]] Expected<model::ModelConfig> resolveModel(const ModelFlags& flags);

/// MODEL-FLAGS as a child `trainbench run` gets them: the preset and only
/// the overrides that were given, so every child resolves the same model.
[[nodiscard]] std::vector<std::string> modelArguments(const ModelFlags& flags);

/// Adds --dp, --tp, --pp, --cp, --zero, --dtype, --attention, --sequence-parallel,
/// --async-tp.
void addParallelFlags(CLI::App& command, ParallelFlags& flags);

/// The layout, with dtype and attention defaulted for `profile`, validated.
[[nodiscard]] Expected<memory::ParallelConfig> resolveParallel(const ParallelFlags& flags,
                                                               memory::Profile profile);

}  // namespace tb::cli
