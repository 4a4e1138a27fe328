// Reading is strict: a checkpoint whose model cannot be read back exactly must
// not be resumed into a different shape.
#include "tb/runs/model_json.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <iterator>
#include <limits>
#include <string>

namespace tb::runs {

nlohmann::json modelToJson(const model::ModelConfig& config) {
  return {{"name", config.name},       {"vocab", config.vocab},
          {"dim", config.dim},         {"layers", config.layers},
          {"heads", config.heads},     {"kv_heads", config.kvHeads},
          {"ffn", config.ffn},         {"seq", config.seq},
          {"batch", config.batch},     {"rope_theta", config.ropeTheta},
          {"qkv_bias", config.qkvBias}};
}

Expected<model::ModelConfig> modelFromJson(const nlohmann::json& json) {
  model::ModelConfig config;
  // A whole number written as 1e21 is a JSON number but not an integer the
  // shape can hold: converting it would be undefined behaviour, not an error.
  const auto integer = [&json](const char* field) -> Expected<std::int64_t> {
    const auto value = json.find(field);
    if (value == json.end() || !value->is_number_integer() ||
        (value->is_number_unsigned() &&
         value->get<std::uint64_t>() >
             static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))) {
      return makeError(ErrorKind::Parse, std::string("model description: '") + field +
                                             "' is missing or not a 64-bit integer");
    }
    return value->get<std::int64_t>();
  };
  std::int64_t* const fields[] = {&config.vocab,   &config.dim, &config.layers, &config.heads,
                                  &config.kvHeads, &config.ffn, &config.seq,    &config.batch};
  const char* const names[] = {"vocab",    "dim", "layers", "heads",
                               "kv_heads", "ffn", "seq",    "batch"};
  for (std::size_t i = 0; i < std::size(names); ++i) {
    auto value = integer(names[i]);
    if (!value) return value.error();
    *fields[i] = *value;
  }
  try {
    config.name = json.at("name").get<std::string>();
    config.ropeTheta = json.at("rope_theta").get<double>();
    config.qkvBias = json.at("qkv_bias").get<bool>();
  } catch (const nlohmann::json::exception& error) {
    return makeError(ErrorKind::Parse, std::string("model description: ") + error.what());
  }
  return config;
}

}  // namespace tb::runs
