// Internal: the summary as a JSON value, so events can embed it without
// re-parsing the string form.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "tb/engine/run_summary.hpp"

namespace tb::engine {

[[nodiscard]] nlohmann::json summaryToJsonObject(const RunSummary& summary);

}  // namespace tb::engine
