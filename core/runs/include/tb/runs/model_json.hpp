// ModelConfig <-> JSON, shared by config.json, checkpoints and events, so the
// field names (which match the CLI's flags: "kv_heads" is --kv-heads) are
// spelled in this one place.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "tb/common/expected.hpp"
#include "tb/model/model_config.hpp"

namespace tb::runs {

[[nodiscard]] nlohmann::json modelToJson(const model::ModelConfig& config);

/// Strict: every field present and typed, since a checkpoint whose model
/// cannot be read back exactly must not be resumed into a different shape.
/// The error names the missing or mistyped field.
[[nodiscard]] Expected<model::ModelConfig> modelFromJson(const nlohmann::json& json);

}  // namespace tb::runs
