// Reading is strict: a checkpoint whose model cannot be read back exactly must
// not be resumed into a different shape.
#include "tb/runs/model_json.hpp"

#include <nlohmann/json.hpp>

namespace tb::runs {

nlohmann::json modelToJson(const model::ModelConfig& config) {
  return {{"name", config.name},   {"vocab", config.vocab},     {"dim", config.dim},
          {"layers", config.layers}, {"heads", config.heads},   {"kv_heads", config.kvHeads},
          {"ffn", config.ffn},     {"seq", config.seq},         {"batch", config.batch},
          {"rope_theta", config.ropeTheta}, {"qkv_bias", config.qkvBias}};
}

Expected<model::ModelConfig> modelFromJson(const nlohmann::json& json) {
  model::ModelConfig config;
  try {
    config.name = json.at("name").get<std::string>();
    config.vocab = json.at("vocab").get<std::int64_t>();
    config.dim = json.at("dim").get<std::int64_t>();
    config.layers = json.at("layers").get<std::int64_t>();
    config.heads = json.at("heads").get<std::int64_t>();
    config.kvHeads = json.at("kv_heads").get<std::int64_t>();
    config.ffn = json.at("ffn").get<std::int64_t>();
    config.seq = json.at("seq").get<std::int64_t>();
    config.batch = json.at("batch").get<std::int64_t>();
    config.ropeTheta = json.at("rope_theta").get<double>();
    config.qkvBias = json.at("qkv_bias").get<bool>();
  } catch (const nlohmann::json::exception& error) {
    return makeError(ErrorKind::Parse, std::string("model description: ") + error.what());
  }
  return config;
}

}  // namespace tb::runs
