// Small string helpers shared by the parsers of the core.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tb {

[[nodiscard]] std::string_view trim(std::string_view text);
[[nodiscard]] std::vector<std::string_view> split(std::string_view text, char separator);
[[nodiscard]] std::string toLower(std::string_view text);
/// A non-negative decimal integer made only of digits, or nothing.
[[nodiscard]] std::optional<long long> parseUnsigned(std::string_view text);
/// Joins with ", " for messages such as "known tags: 25.04, 25.06".
[[nodiscard]] std::string joinList(const std::vector<std::string>& items,
                                   std::string_view separator = ", ");
/// A number as a person wrote it in a message: "-1", "0.05", "300", not
/// std::to_string's "-1.000000".
[[nodiscard]] std::string formatDecimal(double value);

}  // namespace tb
