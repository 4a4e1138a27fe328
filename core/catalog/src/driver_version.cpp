#include "tb/catalog/driver_version.hpp"

#include "tb/common/text.hpp"

namespace tb::catalog {
namespace {

Error badVersion(std::string_view text) {
  return makeError(ErrorKind::BadInput,
                   "driver version '" + std::string(text) +
                       "' is not of the form MAJOR.MINOR[.PATCH] (for example 570.124.06)");
}

}  // namespace

Expected<DriverVersion> DriverVersion::parse(std::string_view text) {
  const std::string_view trimmed = trim(text);
  const auto parts = split(trimmed, '.');
  if (parts.size() < 2 || parts.size() > 3) return badVersion(text);
  int numbers[3] = {0, 0, 0};
  for (std::size_t i = 0; i < parts.size(); ++i) {
    // Driver parts are short; the bound also keeps the int conversion exact.
    if (parts[i].size() > 6) return badVersion(text);
    const auto number = parseUnsigned(parts[i]);
    if (!number) return badVersion(text);
    numbers[i] = static_cast<int>(*number);
  }
  if (numbers[0] == 0) return badVersion(text);
  DriverVersion version;
  version.major_ = numbers[0];
  version.minor_ = numbers[1];
  if (parts.size() == 3) version.patch_ = numbers[2];
  version.text_ = std::string(trimmed);
  return version;
}

std::strong_ordering operator<=>(const DriverVersion& a, const DriverVersion& b) noexcept {
  if (auto c = a.major_ <=> b.major_; c != 0) return c;
  if (auto c = a.minor_ <=> b.minor_; c != 0) return c;
  return a.patch_.value_or(0) <=> b.patch_.value_or(0);
}

}  // namespace tb::catalog
