// The JSON shape of `trainbench compat` output. Field names are part of the
// CLI contract (docs/CLI.md) and checked by the integration tests.
#pragma once

#include "compat_result.hpp"
#include "output.hpp"

namespace tb::cli {

/// Where the judged values came from: {"source", "detected", "summary", ...}.
[[nodiscard]] Json hostToJson(const JudgedHost& host);

/// The verdict object of `compat --image` (also each entry of `compat --all`).
[[nodiscard]] Json verdictToJson(const ReleaseVerdict& result, const JudgedHost& host);

/// The report of `compat --all`: {"host": {...}, "results": [...]}.
[[nodiscard]] Json reportToJson(const std::vector<ReleaseVerdict>& results, const JudgedHost& host);

}  // namespace tb::cli
