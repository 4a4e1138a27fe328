// Presets and validation of ModelConfig. The real architectures use their
// published shapes (torchtitan's llama3_configs, the models' config.json);
// they default to 4096-token sequences and one sequence per micro-batch, a
// common fine-tuning setting that MODEL-FLAGS override. Limits keep every
// product in parameterCount inside int64.
#include "tb/model/model_config.hpp"

#include <array>

#include "tb/common/text.hpp"

namespace tb::model {
namespace {

struct Limit {
  const char* field;
  std::int64_t ModelConfig::*member;
  std::int64_t max;
};

constexpr std::int64_t kMaxWidth = std::int64_t{1} << 20;
constexpr std::array<Limit, 8> kLimits{{
    {"vocab", &ModelConfig::vocab, std::int64_t{1} << 24},
    {"dim", &ModelConfig::dim, kMaxWidth},
    {"layers", &ModelConfig::layers, 4096},
    {"heads", &ModelConfig::heads, 4096},
    {"kv-heads", &ModelConfig::kvHeads, 4096},
    {"ffn", &ModelConfig::ffn, kMaxWidth},
    {"seq", &ModelConfig::seq, std::int64_t{1} << 24},
    {"batch", &ModelConfig::batch, std::int64_t{1} << 20},
}};

ModelConfig make(const char* name, std::int64_t vocab, std::int64_t dim, std::int64_t layers,
                 std::int64_t heads, std::int64_t kvHeads, std::int64_t ffn, std::int64_t seq,
                 std::int64_t batch, double theta, bool qkvBias = false) {
  return ModelConfig{name, vocab, dim, layers, heads, kvHeads, ffn, seq, batch, theta, qkvBias};
}

std::vector<ModelConfig> presets() {
  return {
      make("tiny", 512, 64, 2, 4, 2, 192, 64, 4, 10000.0),
      make("small", 4096, 384, 6, 6, 2, 1024, 256, 4, 10000.0),
      make("llama3-8b", 128256, 4096, 32, 32, 8, 14336, 4096, 1, 500000.0),
      make("llama3-70b", 128256, 8192, 80, 64, 8, 28672, 4096, 1, 500000.0),
      make("llama3-405b", 128256, 16384, 126, 128, 8, 53248, 4096, 1, 500000.0),
      make("llama2-7b", 32000, 4096, 32, 32, 32, 11008, 4096, 1, 10000.0),
      make("qwen2.5-7b", 152064, 3584, 28, 28, 4, 18944, 4096, 1, 1000000.0, true),
      make("mistral-7b", 32000, 4096, 32, 32, 8, 14336, 4096, 1, 10000.0),
  };
}

Error bad(const std::string& message) { return makeError(ErrorKind::BadInput, message); }

}  // namespace

std::vector<std::string> presetNames() {
  std::vector<std::string> names;
  for (const auto& preset : presets()) names.push_back(preset.name);
  return names;
}

Expected<ModelConfig> findPreset(std::string_view name) {
  for (auto& preset : presets()) {
    if (preset.name == name) return preset;
  }
  return makeError(ErrorKind::NotFound, "unknown model preset '" + std::string(name) +
                                            "' (known: " + joinList(presetNames()) + ")");
}

ModelConfig applyOverrides(ModelConfig config, const ModelOverrides& overrides) {
  const ModelConfig before = config;
  const auto set = [](std::int64_t& field, const std::optional<std::int64_t>& value) {
    if (value) field = *value;
  };
  set(config.vocab, overrides.vocab);
  set(config.dim, overrides.dim);
  set(config.layers, overrides.layers);
  set(config.heads, overrides.heads);
  set(config.kvHeads, overrides.kvHeads);
  set(config.ffn, overrides.ffn);
  set(config.seq, overrides.seq);
  set(config.batch, overrides.batch);
  if (!(config == before)) config.name = before.name + "+custom";
  return config;
}

// Each shape field is set on the command line (and in the Runs form, which
// writes the same command) by the option of its name, so a message names the
// option and the value the user gave it.
Status validate(const ModelConfig& config) {
  for (const auto& limit : kLimits) {
    const std::int64_t value = config.*(limit.member);
    if (value < 1 || value > limit.max) {
      return bad("--" + std::string(limit.field) + " " + std::to_string(value) +
                 ": must be between 1 and " + std::to_string(limit.max));
    }
  }
  if (config.dim % config.heads != 0) {
    return bad("--dim " + std::to_string(config.dim) + ": not divisible by --heads " +
               std::to_string(config.heads));
  }
  if (config.heads % config.kvHeads != 0) {
    return bad("--heads " + std::to_string(config.heads) + ": not a multiple of --kv-heads " +
               std::to_string(config.kvHeads));
  }
  if (headDim(config) % 2 != 0) {
    return bad("--dim " + std::to_string(config.dim) + " / --heads " +
               std::to_string(config.heads) + " = " + std::to_string(headDim(config)) +
               ": the head dimension must be even for rotary embeddings");
  }
  if (!(config.ropeTheta > 1.0) || config.ropeTheta > 1e12) {
    return bad("model " + config.name + ": rope theta must be between 1 and 1e12, got " +
               std::to_string(config.ropeTheta));
  }
  return {};
}

std::int64_t headDim(const ModelConfig& config) { return config.dim / config.heads; }

std::int64_t parameterCount(const ModelConfig& config) {
  const std::int64_t d = config.dim;
  const std::int64_t kvWidth = config.kvHeads * headDim(config);
  const std::int64_t attention = 2 * d * d + 2 * d * kvWidth;  // wq, wo, wk, wv
  const std::int64_t bias = config.qkvBias ? d + 2 * kvWidth : 0;
  const std::int64_t feedForward = 3 * d * config.ffn;
  const std::int64_t norms = 2 * d;
  const std::int64_t block = attention + bias + feedForward + norms;
  return 2 * config.vocab * d + config.layers * block + d;
}

double flopsPerToken(const ModelConfig& config) {
  const auto n = static_cast<double>(parameterCount(config));
  return 6.0 * n + 12.0 * static_cast<double>(config.layers) * static_cast<double>(config.dim) *
                       static_cast<double>(config.seq);
}

}  // namespace tb::model
