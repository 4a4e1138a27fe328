// ModelConfig <-> JSON, shared by config.json, checkpoints and events so the
// field names are the same everywhere (and match the CLI's flag names).
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "tb/common/expected.hpp"
#include "tb/engine/model.hpp"

namespace tb::engine {

[[nodiscard]] nlohmann::json modelToJson(const ModelConfig& config);
/// The error names the missing or mistyped field.
[[nodiscard]] Expected<ModelConfig> modelFromJson(const nlohmann::json& json);

}  // namespace tb::engine
