// A small JSON Schema (draft 2020-12) validator for the subset of keywords that
// TrainBench's own schemas use. A full validator library would be one more
// dependency for a handful of keywords; a subset is only safe if it cannot be
// outgrown silently, so a schema that uses any other keyword is a programming
// error (std::logic_error), caught by the first test that loads it.
//
// Supported: type (integer vs number), required, properties,
// additionalProperties (boolean), items, enum, const, pattern (ECMAScript),
// minimum, maximum, minItems, uniqueItems, $ref ("#/..." within the schema).
// Annotations ($schema, $id, $comment, $defs, title, description, default,
// examples) are accepted; a "description" next to a "pattern" is quoted in the
// message when the pattern fails, since a regex alone rarely says what is meant.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tb::json_schema {

/// One way in which a JSON document breaks its schema.
struct Violation {
  /// Where, as a JSON path: "$.releases[2].required_driver".
  std::string path;
  /// What, naming the bad value: "expected an integer, got string \"575\"".
  std::string message;
};

/// Checks `instance` against `schema` and returns every violation found, in
/// the order the validator meets them (an object's missing properties first,
/// then its members in the instance's own order). Empty means valid. Throws
/// std::logic_error when the schema is malformed or uses an unsupported keyword.
[[nodiscard]] std::vector<Violation> validate(const nlohmann::json& schema,
                                              const nlohmann::json& instance);

/// The same for a document parsed with key order preserved, so that the first
/// violation reported is the first one in the file.
[[nodiscard]] std::vector<Violation> validate(const nlohmann::json& schema,
                                              const nlohmann::ordered_json& instance);

/// `parent` extended by an object member: "$.a" + "b" -> "$.a.b"; keys that are
/// not identifiers are quoted: "$.a[\"b c\"]".
[[nodiscard]] std::string memberPath(const std::string& parent, const std::string& key);

/// `parent` extended by an array index: "$.a" + 2 -> "$.a[2]".
[[nodiscard]] std::string indexPath(const std::string& parent, std::size_t index);

}  // namespace tb::json_schema
