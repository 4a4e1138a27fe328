// An NVIDIA Linux driver version such as "570.124.06" or "570.26".
//
// The third part keeps its leading zeros for display ("535.104.05"), but
// versions compare numerically part by part, a missing part counting as 0.
#pragma once

#include <compare>
#include <optional>
#include <string>
#include <string_view>

#include "tb/common/expected.hpp"

namespace tb::catalog {

/// A parsed driver version; construct it with parse().
class DriverVersion {
 public:
  DriverVersion() = default;

  /// Accepts two or three dot-separated numeric parts ("570.26",
  /// "535.104.05"); anything else is BadInput naming the text.
  static Expected<DriverVersion> parse(std::string_view text);

  [[nodiscard]] int major() const noexcept { return major_; }
  [[nodiscard]] int minor() const noexcept { return minor_; }
  [[nodiscard]] std::optional<int> patch() const noexcept { return patch_; }
  /// The version as it was written ("535.104.05").
  [[nodiscard]] const std::string& text() const noexcept { return text_; }

  friend bool operator==(const DriverVersion& a, const DriverVersion& b) noexcept {
    return (a <=> b) == 0;
  }
  friend std::strong_ordering operator<=>(const DriverVersion& a, const DriverVersion& b) noexcept;

 private:
  int major_ = 0;
  int minor_ = 0;
  std::optional<int> patch_;
  std::string text_ = "0.0";
};

}  // namespace tb::catalog
