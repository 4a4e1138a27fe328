// Proves a schema well formed before any instance is looked at, so an
// unsupported keyword fails even where no instance ever reaches it: a subset
// validator is only safe if the schema cannot silently outgrow it.
#include <regex>
#include <set>
#include <stdexcept>
#include <string_view>

#include "json_schema_internal.hpp"

namespace tb::json_schema::detail {
namespace {

using nlohmann::json;

const std::set<std::string, std::less<>> kTypeNames = {"null",   "boolean", "object", "array",
                                                       "number", "integer", "string"};
const std::set<std::string, std::less<>> kAnnotations = {
    "$schema", "$id", "$comment", "title", "description", "default", "examples"};

[[noreturn]] void badSchema(const std::string& where, const std::string& what) {
  throw std::logic_error("JSON Schema at " + where + ": " + what);
}

std::string pointerChild(const std::string& where, std::string_view key) {
  std::string escaped;
  for (const char c : key) {
    switch (c) {
      case '~': escaped += "~0"; break;
      case '/': escaped += "~1"; break;
      default: escaped += c;
    }
  }
  return where + "/" + escaped;
}

// Proves the schema is well formed and uses only supported keywords.
class SchemaChecker {
 public:
  explicit SchemaChecker(const json& root) : root_(root) {}

  void check(const json& schema, const std::string& where) {
    if (!schema.is_object()) badSchema(where, "a schema must be an object");
    for (const auto& [keyword, value] : schema.items()) {
      checkKeyword(keyword, value, pointerChild(where, keyword));
    }
  }

 private:
  void checkKeyword(const std::string& keyword, const json& value, const std::string& where) {
    if (kAnnotations.count(keyword) != 0 || keyword == "const") return;
    if (keyword == "type") {
      checkType(value, where);
    } else if (keyword == "required") {
      if (!value.is_array()) badSchema(where, "\"required\" must be an array");
      for (const auto& name : value) {
        if (!name.is_string()) badSchema(where, "\"required\" must list property names");
      }
    } else if (keyword == "properties" || keyword == "$defs") {
      if (!value.is_object()) badSchema(where, "\"" + keyword + "\" must be an object");
      for (const auto& [name, sub] : value.items()) check(sub, pointerChild(where, name));
    } else if (keyword == "additionalProperties" || keyword == "uniqueItems") {
      if (!value.is_boolean()) badSchema(where, "only a boolean \"" + keyword + "\" is supported");
    } else if (keyword == "items") {
      check(value, where);
    } else if (keyword == "enum") {
      if (!value.is_array() || value.empty()) {
        badSchema(where, "\"enum\" must be a non-empty array");
      }
    } else if (keyword == "pattern") {
      checkPattern(value, where);
    } else if (keyword == "minimum" || keyword == "maximum") {
      if (!value.is_number()) badSchema(where, "\"" + keyword + "\" must be a number");
    } else if (keyword == "minItems") {
      if (!value.is_number_unsigned()) {
        badSchema(where, "\"minItems\" must be a non-negative integer");
      }
    } else if (keyword == "$ref") {
      if (!value.is_string()) badSchema(where, "\"$ref\" must be a string");
      (void)resolveRef(root_, value.get<std::string>(), where);
    } else {
      badSchema(where, "unsupported keyword \"" + keyword + "\"");
    }
  }

  static void checkType(const json& value, const std::string& where) {
    const auto known = [](const json& name) {
      return name.is_string() && kTypeNames.count(name.get<std::string>()) != 0;
    };
    if (value.is_array() && !value.empty()) {
      for (const auto& name : value) {
        if (!known(name)) badSchema(where, "unknown type " + name.dump());
      }
    } else if (!known(value)) {
      badSchema(where, "unknown type " + value.dump());
    }
  }

  static void checkPattern(const json& value, const std::string& where) {
    if (!value.is_string()) badSchema(where, "\"pattern\" must be a string");
    try {
      std::regex(value.get<std::string>(), std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      badSchema(where, "pattern " + value.dump() + " does not compile: " + e.what());
    }
  }

  const json& root_;
};

}  // namespace

const json& resolveRef(const json& root, const std::string& ref, const std::string& where) {
  if (ref == "#") return root;
  if (ref.rfind("#/", 0) != 0) {
    badSchema(where, "only local references (\"#/...\") are supported, not \"" + ref + "\"");
  }
  try {
    const json& target = root.at(json::json_pointer(ref.substr(1)));
    if (!target.is_object()) badSchema(where, "reference \"" + ref + "\" is not a schema object");
    return target;
  } catch (const json::exception&) {
    badSchema(where, "reference \"" + ref + "\" does not resolve");
  }
}

void checkSchema(const json& root) { SchemaChecker(root).check(root, "#"); }

}  // namespace tb::json_schema::detail
