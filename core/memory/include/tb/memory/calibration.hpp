// Calibration: measured peaks fit a per-profile linear correction
// (measured ~ scale x predicted + offset) that the predictor's callers apply.
// The input is a plain list of (configuration, measured peak) so the engine's
// run store and imported cluster measurements feed it the same way. Fits are
// kept as JSON in the user's config directory, written atomically.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <vector>

#include "tb/common/expected.hpp"
#include "tb/memory/predictor.hpp"

namespace tb::memory {

/// One measured run: what was run and its measured peak (reserved bytes on a
/// GPU, the tracking allocator's peak for the engine).
struct MeasuredPeak {
  PredictionInput config;
  std::uint64_t peakBytes = 0;
};

/// A fitted correction for one profile and how well it does.
struct Calibration {
  double scale = 1.0;
  std::int64_t offsetBytes = 0;
  std::int64_t points = 0;
  double meanErrorBefore = 0.0;  ///< mean |predicted - measured| / measured, uncorrected
  double maxErrorBefore = 0.0;
  double meanErrorAfter = 0.0;  ///< the same with the correction applied
  double maxErrorAfter = 0.0;

  /// Applies the correction to a predicted total (never below zero).
  [[nodiscard]] std::uint64_t apply(std::uint64_t predictedBytes) const;
};

/// Stored fits, one per profile.
using CalibrationSet = std::map<Profile, Calibration>;

/// Fits one correction per profile present in `points`. Points whose
/// prediction fails or whose measured peak is zero are bad input.
[[nodiscard]] Expected<CalibrationSet> fitCalibrations(const std::vector<MeasuredPeak>& points);

/// <configDirectory()>/memory-calibration.json
[[nodiscard]] std::filesystem::path defaultCalibrationPath();

/// Reads stored fits; a missing file is an empty set, a malformed one a Parse error.
[[nodiscard]] Expected<CalibrationSet> loadCalibrations(const std::filesystem::path& path);

/// Writes the fits atomically (temp file + rename).
[[nodiscard]] Status saveCalibrations(const CalibrationSet& set, const std::filesystem::path& path);

}  // namespace tb::memory
