// Summaries of repeated measurements. The median, not the mean, is the
// headline: one run disturbed by the machine should not move the result.
#pragma once

#include <cstddef>
#include <span>

#include "tb/common/expected.hpp"

namespace tb::bench {

/// Median, minimum and maximum of a set of measurements.
struct Summary {
  double median = 0.0;
  double min = 0.0;
  double max = 0.0;
  std::size_t count = 0;

  friend bool operator==(const Summary&, const Summary&) = default;
};

/// Summarises `values`; BadInput when empty or when a value is not finite.
[[nodiscard]] Expected<Summary> summarize(std::span<const double> values);

/// `candidate.median / base.median`; 0 when the base median is not positive.
[[nodiscard]] double speedup(const Summary& base, const Summary& candidate);

}  // namespace tb::bench
