// An enum's names as one table: writing a value by name, reading a name
// back, and listing the known names for a message, so that the two
// directions can never disagree.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tb {

/// One row of a name table.
template <typename Enum>
struct EnumName {
  Enum value;
  std::string_view name;
};

/// The value's name, or `fallback` for a value the table lacks.
template <typename Enum, std::size_t N>
[[nodiscard]] constexpr std::string_view nameOf(const std::array<EnumName<Enum>, N>& table,
                                                Enum value, std::string_view fallback) noexcept {
  for (const EnumName<Enum>& row : table) {
    if (row.value == value) return row.name;
  }
  return fallback;
}

/// The value `text` names exactly, if any.
template <typename Enum, std::size_t N>
[[nodiscard]] constexpr std::optional<Enum> valueNamed(const std::array<EnumName<Enum>, N>& table,
                                                       std::string_view text) noexcept {
  for (const EnumName<Enum>& row : table) {
    if (row.name == text) return row.value;
  }
  return std::nullopt;
}

/// Every name, in table order.
template <typename Enum, std::size_t N>
[[nodiscard]] std::vector<std::string> namesOf(const std::array<EnumName<Enum>, N>& table) {
  std::vector<std::string> names;
  for (const EnumName<Enum>& row : table) names.emplace_back(row.name);
  return names;
}

}  // namespace tb
