// Internal: the typed reads of JSON members every record reader of this
// module uses. Tolerant of absence (older writers had fewer fields), so a
// wrong or missing optional field falls back; required ones go through
// `required`, whose error names the field.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "tb/common/expected.hpp"
#include "tb/runs/run_state.hpp"

namespace tb::runs::detail {

using nlohmann::json;

inline Error fieldError(const char* field, const char* expected) {
  return makeError(ErrorKind::Parse,
                   std::string("field '") + field + "' missing or not " + expected);
}

inline const json* member(const json& object, const char* field) {
  const auto it = object.find(field);
  return it == object.end() ? nullptr : &*it;
}

inline double numberOr(const json& object, const char* field, double fallback) {
  const json* value = member(object, field);
  return value != nullptr && value->is_number() ? value->get<double>() : fallback;
}

inline std::optional<double> optionalNumber(const json& object, const char* field) {
  const json* value = member(object, field);
  if (value == nullptr || !value->is_number()) return std::nullopt;
  return value->get<double>();
}

inline std::uint64_t bytesOr(const json& object, const char* field) {
  const json* value = member(object, field);
  return value != nullptr && value->is_number_unsigned() ? value->get<std::uint64_t>() : 0;
}

inline std::int64_t integerOr(const json& object, const char* field, std::int64_t fallback = 0) {
  const json* value = member(object, field);
  return value != nullptr && value->is_number_integer() ? value->get<std::int64_t>() : fallback;
}

inline std::string textOr(const json& object, const char* field, std::string fallback = {}) {
  const json* value = member(object, field);
  return value != nullptr && value->is_string() ? value->get<std::string>() : fallback;
}

inline bool flagOr(const json& object, const char* field, bool fallback) {
  const json* value = member(object, field);
  return value != nullptr && value->is_boolean() ? value->get<bool>() : fallback;
}

/// The `status` field as one of the four end states; the error quotes it.
inline Expected<RunState> endStateField(const json& object) {
  const std::string status = textOr(object, "status");
  const auto state = runStateFromStatus(status);
  if (!state) {
    return makeError(ErrorKind::Parse, "field 'status' is '" + status +
                                           "', not completed, interrupted, oom or failed");
  }
  return *state;
}

inline const json* objectMember(const json& object, const char* field) {
  const json* value = member(object, field);
  return value != nullptr && value->is_object() ? value : nullptr;
}

}  // namespace tb::runs::detail
