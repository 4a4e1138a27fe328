// The one median of the project: the engine's summary, the benchmark's
// repeats, the reports and the performance programs all take it from here,
// so "median step time" means the same thing in every file that prints one.
#pragma once

#include <span>

namespace tb {

/// The middle value; for an even count the mean of the two middle values (so
/// two repeats give their midpoint, not the faster one); 0 when empty.
[[nodiscard]] double median(std::span<const double> values);

}  // namespace tb
