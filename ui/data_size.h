// Byte counts in the GUI's text, one formatter for every page: the core has
// tb::formatBytes for logs and files; people get QLocale's formattedDataSize
// (their decimal separator, IEC units) with the same three significant
// figures, so a number reads alike on every page and in the CLI.
#pragma once

#include <QString>

namespace tb::ui {

/// "61.2 GiB", "9.87 GiB", "244 MiB", "512 bytes", in the user's locale.
[[nodiscard]] QString formatDataSize(double bytes);

}  // namespace tb::ui
