// The median is the project's one (tb/common/statistics.hpp): two repeats
// give their midpoint rather than the faster one.
#include "tb/bench/statistics.hpp"

#include "tb/common/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace tb::bench {

Expected<Summary> summarize(std::span<const double> values) {
  if (values.empty()) return makeError(ErrorKind::BadInput, "no measurements to summarise");
  for (const double value : values) {
    if (!std::isfinite(value)) {
      return makeError(ErrorKind::BadInput,
                       "measurement " + std::to_string(value) + " is not a finite number");
    }
  }
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  Summary summary;
  summary.count = n;
  summary.min = sorted.front();
  summary.max = sorted.back();
  summary.median = tb::median(sorted);
  return summary;
}

double speedup(const Summary& base, const Summary& candidate) {
  if (!(base.median > 0.0)) return 0.0;
  return candidate.median / base.median;
}

}  // namespace tb::bench
