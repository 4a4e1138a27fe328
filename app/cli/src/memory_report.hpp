// How `memory` and `plan` print bytes, breakdowns and calibrations, in text
// and JSON, so the two commands (and docs/CLI.md) agree on every field.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "output.hpp"
#include "tb/common/units.hpp"
#include "tb/memory/calibration.hpp"
#include "tb/memory/predictor.hpp"

namespace tb::cli {

/// {weights, gradients, optimizer, activations, logits, recompute, workspace, overhead}
[[nodiscard]] Json breakdownJson(const memory::MemoryBreakdown& breakdown);

/// {scale, offset_bytes, points, mean_error_before, mean_error_after} or null.
[[nodiscard]] Json calibrationJson(const std::optional<memory::Calibration>& calibration);

/// The fields naming the job: model, profile, dtype, dp/tp/pp/zero, attention,
/// compile, and `runtime` (the engine runtime's spelling; null when empty).
[[nodiscard]] Json jobJson(const memory::PredictionInput& input, const std::string& runtime);

/// A two-column table of the breakdown with each term's share of the total.
void printBreakdown(std::ostream& out, const memory::MemoryBreakdown& breakdown);

}  // namespace tb::cli
