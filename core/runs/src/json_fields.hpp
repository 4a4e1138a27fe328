// Internal: typed reads of JSON members shared by the event and summary
// readers, so a wrong type is reported with its field name, never thrown.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "tb/common/expected.hpp"
#include "tb/runs/run_event.hpp"

namespace tb::runs::detail {

/// The summary object of summary.json or of an `end` event.
[[nodiscard]] Expected<SummaryFields> parseSummary(const nlohmann::json& json);

}  // namespace tb::runs::detail
