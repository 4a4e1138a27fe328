// Written with the engine's RunConfig already resolved (seq_min/seq_max are
// the model's length when one length was trained), so a reader never needs
// the engine's defaults to understand the file.
#include "tb/runs/run_config_record.hpp"

#include "json_fields.hpp"
#include "tb/runs/model_json.hpp"

namespace tb::runs {

using detail::json;

json toJson(const RunConfigRecord& config) {
  return {{"model", modelToJson(config.model)},
          {"steps", config.steps},
          {"seed", config.seed},
          {"threads", config.threads},
          {"blas_threads", config.blasThreads},
          {"blas_core", config.blasCore},
          {"memory_budget", config.memoryBudget},
          {"recompute", config.recompute},
          {"data", {{"kind", config.dataKind}, {"file", config.dataFile}}},
          {"device", config.device},
          {"runtime", config.runtime},
          {"compile", config.compile},
          {"log_every", config.logEvery},
          {"seq_min", config.seqMin},
          {"seq_max", config.seqMax},
          {"save_every", config.saveEvery},
          {"resume", config.resume},
          {"torch_version", config.torchVersion},
          {"world_size", config.worldSize},
          {"rank", config.rank},
          {"bucket_mb", config.bucketMiB},
          {"zero", config.zeroStage},
          {"dist_timeout_ms", config.distTimeoutMs}};
}

Expected<RunConfigRecord> configFromJson(const json& object) {
  using namespace detail;
  if (!object.is_object()) return makeError(ErrorKind::Parse, "config is not a JSON object");
  const json* modelJson = objectMember(object, "model");
  if (modelJson == nullptr) return fieldError("model", "an object");
  auto model = modelFromJson(*modelJson);
  if (!model) return model.error();
  RunConfigRecord config;
  config.model = std::move(*model);
  config.steps = integerOr(object, "steps");
  config.seed = static_cast<std::uint64_t>(integerOr(object, "seed"));
  config.threads = static_cast<int>(integerOr(object, "threads"));
  config.blasThreads = static_cast<int>(integerOr(object, "blas_threads"));
  config.blasCore = textOr(object, "blas_core");
  config.memoryBudget = bytesOr(object, "memory_budget");
  config.recompute = textOr(object, "recompute");
  if (const json* data = objectMember(object, "data")) {
    config.dataKind = textOr(*data, "kind", config.dataKind);
    config.dataFile = textOr(*data, "file");
  }
  config.device = textOr(object, "device", config.device);
  config.runtime = textOr(object, "runtime");
  config.compile = flagOr(object, "compile", false);
  config.logEvery = integerOr(object, "log_every", config.logEvery);
  config.seqMin = integerOr(object, "seq_min", config.model.seq);
  config.seqMax = integerOr(object, "seq_max", config.model.seq);
  config.saveEvery = integerOr(object, "save_every");
  config.resume = textOr(object, "resume");
  config.torchVersion = textOr(object, "torch_version");
  config.worldSize = static_cast<int>(integerOr(object, "world_size", 1));
  config.rank = static_cast<int>(integerOr(object, "rank"));
  config.bucketMiB = numberOr(object, "bucket_mb", 0.0);
  config.zeroStage = static_cast<int>(integerOr(object, "zero"));
  config.distTimeoutMs = integerOr(object, "dist_timeout_ms");
  return config;
}

bool trainedOneLength(const RunConfigRecord& config) { return config.seqMin == config.seqMax; }

}  // namespace tb::runs
