// `trainbench memory --calibrate FILE`: fits the per-profile correction from
// measured peaks and stores it where `memory` and `plan` read it.
#pragma once

#include <string>
#include <vector>

#include "command.hpp"
#include "tb/common/expected.hpp"
#include "tb/memory/calibration.hpp"

namespace tb::cli {

/// Reads {"measurements": [{model flags..., "peak_bytes": N}, ...]}; each
/// entry takes the MODEL-FLAGS and PARALLEL-FLAGS names as JSON keys
/// (kv_heads, sequence_parallel), plus profile, recompute and peak_bytes.
/// A directory is a run store (or one run): each completed CPU run of
/// `trainbench run` is an `engine` measurement of its own configuration.
[[nodiscard]] Expected<std::vector<memory::MeasuredPeak>> readMeasurements(const std::string& path);

/// Fits, merges into the stored set, saves, and prints errors before and after.
int runCalibrate(const CommandContext& context, const std::string& path, bool json);

}  // namespace tb::cli
