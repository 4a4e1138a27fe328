// formattedDataSize picks the unit (the largest power of 1024 not above the
// count) but takes a fixed number of decimals; the decimals are chosen here
// from the value in that unit, so 9.87 GiB keeps two and 244 MiB none.
#include "ui/data_size.h"

#include <QLocale>

#include <cmath>

#include "tb/common/units.hpp"

namespace tb::ui {

QString formatDataSize(double bytes) {
  double value = std::abs(bytes);
  int steps = 0;
  while (value >= tb::kKiB) {
    value /= tb::kKiB;
    ++steps;
  }
  const int decimals = steps == 0 ? 0 : value < 10.0 ? 2 : value < 100.0 ? 1 : 0;
  return QLocale().formattedDataSize(static_cast<qint64>(std::llround(bytes)), decimals,
                                     QLocale::DataSizeIecFormat);
}

}  // namespace tb::ui
