// nth_element on a copy: O(n) and the caller's order (a loss curve, step
// times in order) is left alone.
#include "tb/common/statistics.hpp"

#include <algorithm>
#include <vector>

namespace tb {

double median(std::span<const double> values) {
  if (values.empty()) return 0.0;
  std::vector<double> copy(values.begin(), values.end());
  const auto middle = copy.begin() + static_cast<std::ptrdiff_t>(copy.size() / 2);
  std::nth_element(copy.begin(), middle, copy.end());
  if (copy.size() % 2 == 1) return *middle;
  return (*middle + *std::max_element(copy.begin(), middle)) / 2.0;
}

}  // namespace tb
