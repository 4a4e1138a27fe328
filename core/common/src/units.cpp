// snprintf's "%.2f" follows LC_NUMERIC, which a Qt program may have set:
// a decimal comma is turned back into a point so text stays the same
// whoever calls it.
#include "tb/common/units.hpp"

#include <array>
#include <cstdio>

namespace tb {

std::string formatBytes(std::uint64_t bytes) {
  constexpr std::array<const char*, 5> kUnits = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  // Move up while the value would print as 1024 or more once rounded to its
  // three figures ("1024 KiB" is "1.00 MiB").
  while (unit + 1 < kUnits.size() && (value >= kKiB || (unit > 0 && value >= 999.5))) {
    value /= kKiB;
    ++unit;
  }
  std::array<char, 32> text{};
  if (unit == 0) {
    std::snprintf(text.data(), text.size(), "%llu B", static_cast<unsigned long long>(bytes));
  } else {
    std::snprintf(text.data(), text.size(),
                  value < 10    ? "%.2f %s"
                  : value < 100 ? "%.1f %s"
                                : "%.0f %s",
                  value, kUnits[unit]);
  }
  std::string out(text.data());
  for (char& c : out) {
    if (c == ',') c = '.';
  }
  return out;
}

}  // namespace tb
