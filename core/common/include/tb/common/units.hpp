// Byte units and their text for people, one definition for every layer below
// the GUI (which uses QLocale::formattedDataSize). Binary units throughout: a
// GPU's memory and a memory budget are both counted in GiB.
#pragma once

#include <cstdint>
#include <string>

namespace tb {

inline constexpr double kKiB = 1024.0;
inline constexpr double kMiB = 1024.0 * kKiB;
inline constexpr double kGiB = 1024.0 * kMiB;

/// "1.50 GiB", "12.0 MiB", "640 B": three significant figures, binary units.
/// Locale-independent (a GUI's decimal comma never reaches a CSV or a log).
[[nodiscard]] std::string formatBytes(std::uint64_t bytes);

}  // namespace tb
