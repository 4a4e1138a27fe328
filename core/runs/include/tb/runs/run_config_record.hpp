// A run's config.json: what was asked for and what the host decided (threads,
// BLAS kernel), written before the first step so that a killed run still says
// what it was. The engine fills it from its RunConfig; the run store, the
// benchmark and `memory --calibrate` read it back here.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "tb/common/expected.hpp"
#include "tb/model/model_config.hpp"

namespace tb::runs {

/// The fields of config.json.
struct RunConfigRecord {
  model::ModelConfig model;
  std::int64_t steps = 0;
  std::uint64_t seed = 0;
  int threads = 0;                  ///< intra-op threads
  int blasThreads = 0;              ///< the BLAS library's own pool; 0: it has none
  std::string blasCore;             ///< the BLAS kernel in use, e.g. "Haswell"
  std::uint64_t memoryBudget = 0;   ///< bytes; 0: unlimited
  std::string recompute;            ///< as requested, e.g. "auto"
  std::string dataKind = "random";  ///< random, synthetic, text
  std::string dataFile;
  std::string device = "cpu";
  std::string runtime;  ///< as --runtime spells it
  bool compile = false;
  std::int64_t logEvery = 10;
  std::int64_t seqMin = 0;  ///< per-step sequence range; both model.seq for one length
  std::int64_t seqMax = 0;
  std::int64_t saveEvery = 0;
  std::string resume;  ///< the run directory resumed from, if any
  std::string torchVersion;
  // Data parallelism (one process: world size 1, rank 0).
  int worldSize = 1;
  int rank = 0;
  double bucketMiB = 0.0;          ///< gradient bucket cap; 0: one all-reduce
  int zeroStage = 0;               ///< 1: AdamW's moments sharded over the ranks
  std::int64_t distTimeoutMs = 0;  ///< every collective's deadline; 0: not distributed

  friend bool operator==(const RunConfigRecord&, const RunConfigRecord&) = default;
};

[[nodiscard]] nlohmann::json toJson(const RunConfigRecord& config);

/// Reads config.json. The model must be complete (modelFromJson); other
/// absent fields keep their defaults, and runs written before --seq-min and
/// --seq-max existed trained one length: the model's.
[[nodiscard]] Expected<RunConfigRecord> configFromJson(const nlohmann::json& json);

/// Whether every step trained the same sequence length.
[[nodiscard]] bool trainedOneLength(const RunConfigRecord& config);

}  // namespace tb::runs
