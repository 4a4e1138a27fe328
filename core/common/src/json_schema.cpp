// Walks the instance alongside its schema, after json_schema_check.cpp has
// proved the schema uses only supported keywords (so nothing here needs to
// guard against a malformed schema). Messages name the bad value because they
// end up in front of a user who is editing a catalog file.
#include "tb/common/json_schema.hpp"

#include <cmath>
#include <map>
#include <regex>
#include <stdexcept>
#include <string_view>
#include <type_traits>

#include "json_schema_internal.hpp"

namespace tb::json_schema {
namespace {

using nlohmann::json;

// Deep enough for any real document; a $ref cycle would otherwise recurse forever.
constexpr int kMaxDepth = 128;
constexpr std::size_t kMaxPreview = 60;

std::string preview(std::string text) {
  if (text.size() > kMaxPreview) text = text.substr(0, kMaxPreview - 3) + "...";
  return text;
}

template <class Json>
std::string describe(const Json& value) {
  if (value.is_null()) return "null";
  if (value.is_boolean()) return "boolean " + value.dump();
  if (value.is_number_integer()) return "integer " + value.dump();
  if (value.is_number()) return "number " + value.dump();
  if (value.is_string()) return "string " + preview(value.dump());
  if (value.is_array()) return "an array";
  if (value.is_object()) return "an object";
  return "an unsupported value";
}

std::string withArticle(std::string_view type) {
  if (type == "null") return "null";
  if (type == "integer" || type == "object" || type == "array") return "an " + std::string(type);
  return "a " + std::string(type);
}

template <class Json>
bool hasType(const Json& value, std::string_view type) {
  if (type == "null") return value.is_null();
  if (type == "boolean") return value.is_boolean();
  if (type == "object") return value.is_object();
  if (type == "array") return value.is_array();
  if (type == "string") return value.is_string();
  if (type == "number") return value.is_number();
  // Draft 2020-12: a number with a zero fractional part is an integer.
  if (value.is_number_integer()) return true;
  if (!value.is_number_float()) return false;
  const double number = value.template get<double>();
  return std::isfinite(number) && std::floor(number) == number;
}

// Equality as JSON Schema means it: key order of objects does not matter.
template <class Json>
json plain(const Json& value) {
  if constexpr (std::is_same_v<Json, json>) {
    return value;
  } else {
    return json(value);
  }
}

template <class Json>
class InstanceValidator {
 public:
  InstanceValidator(const json& root, std::vector<Violation>& out) : root_(root), out_(out) {}

  void check(const json& schema, const Json& value, const std::string& path, int depth) {
    if (depth > kMaxDepth) {
      throw std::logic_error("JSON Schema recursion deeper than " + std::to_string(kMaxDepth) +
                             " levels at " + path + "; is there a $ref cycle?");
    }
    if (const auto ref = schema.find("$ref"); ref != schema.end()) {
      check(detail::resolveRef(root_, ref->template get<std::string>(), "$ref"), value, path,
            depth + 1);
    }
    if (!checkType(schema, value, path)) return;
    if (const auto expected = schema.find("const"); expected != schema.end()) {
      if (plain(value) != *expected) {
        report(path, "expected " + preview(expected->dump()) + ", got " + describe(value));
      }
    }
    if (const auto choices = schema.find("enum"); choices != schema.end()) {
      checkEnum(*choices, value, path);
    }
    if (value.is_string()) checkString(schema, value, path);
    if (value.is_number()) checkNumber(schema, value, path);
    if (value.is_array()) checkArray(schema, value, path, depth);
    if (value.is_object()) checkObject(schema, value, path, depth);
  }

 private:
  void report(const std::string& path, std::string message) {
    out_.push_back(Violation{path, std::move(message)});
  }

  // False when the type is wrong: the other keywords would only repeat that.
  bool checkType(const json& schema, const Json& value, const std::string& path) {
    const auto type = schema.find("type");
    if (type == schema.end()) return true;
    std::vector<std::string> names;
    if (type->is_array()) {
      for (const auto& name : *type) names.push_back(name.template get<std::string>());
    } else {
      names.push_back(type->template get<std::string>());
    }
    std::string expected;
    for (const auto& name : names) {
      if (hasType(value, name)) return true;
      expected += (expected.empty() ? "" : " or ") + withArticle(name);
    }
    report(path, "expected " + expected + ", got " + describe(value));
    return false;
  }

  void checkEnum(const json& choices, const Json& value, const std::string& path) {
    const json candidate = plain(value);
    std::string listed;
    for (const auto& choice : choices) {
      if (candidate == choice) return;
      listed += (listed.empty() ? "" : ", ") + choice.dump();
    }
    report(path, preview(value.dump()) + " is not one of " + listed);
  }

  void checkString(const json& schema, const Json& value, const std::string& path) {
    const auto pattern = schema.find("pattern");
    if (pattern == schema.end()) return;
    const auto& source = pattern->template get_ref<const std::string&>();
    auto cached = regexes_.find(source);
    if (cached == regexes_.end()) {
      cached = regexes_.emplace(source, std::regex(source, std::regex::ECMAScript)).first;
    }
    const auto& text = value.template get_ref<const typename Json::string_t&>();
    if (std::regex_search(text, cached->second)) return;
    // A pattern alone rarely tells a person what was meant; the description does.
    std::string hint;
    if (const auto about = schema.find("description");
        about != schema.end() && about->is_string()) {
      hint = " (" + about->template get<std::string>() + ")";
    }
    report(path, preview(value.dump()) + " does not match the pattern " + source + hint);
  }

  void checkNumber(const json& schema, const Json& value, const std::string& path) {
    const double number = value.template get<double>();
    if (const auto low = schema.find("minimum");
        low != schema.end() && number < low->template get<double>()) {
      report(path, describe(value) + " is below the minimum " + low->dump());
    }
    if (const auto high = schema.find("maximum");
        high != schema.end() && number > high->template get<double>()) {
      report(path, describe(value) + " is above the maximum " + high->dump());
    }
  }

  void checkArray(const json& schema, const Json& value, const std::string& path, int depth) {
    if (const auto least = schema.find("minItems"); least != schema.end()) {
      const auto minimum = least->template get<std::size_t>();
      if (value.size() < minimum) {
        report(path, "expected at least " + std::to_string(minimum) +
                         (minimum == 1 ? " item" : " items") + ", got " +
                         std::to_string(value.size()));
      }
    }
    if (const auto unique = schema.find("uniqueItems");
        unique != schema.end() && unique->template get<bool>()) {
      checkUnique(value, path);
    }
    if (const auto items = schema.find("items"); items != schema.end()) {
      for (std::size_t i = 0; i < value.size(); ++i) {
        check(*items, value[i], indexPath(path, i), depth + 1);
      }
    }
  }

  void checkUnique(const Json& value, const std::string& path) {
    std::vector<json> seen;
    for (std::size_t i = 0; i < value.size(); ++i) {
      seen.push_back(plain(value[i]));
      for (std::size_t j = 0; j < i; ++j) {
        if (seen[j] == seen[i]) {
          report(path, "items " + std::to_string(j) + " and " + std::to_string(i) + " are equal (" +
                           describe(value[i]) + ")");
          return;
        }
      }
    }
  }

  void checkObject(const json& schema, const Json& value, const std::string& path, int depth) {
    if (const auto required = schema.find("required"); required != schema.end()) {
      for (const auto& name : *required) {
        const auto& key = name.template get_ref<const std::string&>();
        if (!value.contains(key)) report(path, "missing required property \"" + key + "\"");
      }
    }
    const auto properties = schema.find("properties");
    const auto additional = schema.find("additionalProperties");
    const bool closed = additional != schema.end() && !additional->template get<bool>();
    for (const auto& [key, member] : value.items()) {
      if (properties != schema.end() && properties->contains(key)) {
        check(properties->at(key), member, memberPath(path, key), depth + 1);
      } else if (closed) {
        report(memberPath(path, key),
               "unknown property \"" + key + "\"" + knownList(properties, schema));
      }
    }
  }

  static std::string knownList(json::const_iterator properties, const json& schema) {
    if (properties == schema.end() || properties->empty()) {
      return "; no properties are allowed here";
    }
    std::string names;
    for (const auto& [name, unused] : properties->items()) {
      names += (names.empty() ? "" : ", ") + name;
    }
    return "; known properties: " + names;
  }

  const json& root_;
  std::vector<Violation>& out_;
  std::map<std::string, std::regex> regexes_;
};

template <class Json>
std::vector<Violation> validateInstance(const json& schema, const Json& instance) {
  detail::checkSchema(schema);
  std::vector<Violation> violations;
  InstanceValidator<Json>(schema, violations).check(schema, instance, "$", 0);
  return violations;
}

bool isIdentifier(const std::string& key) {
  if (key.empty()) return false;
  for (std::size_t i = 0; i < key.size(); ++i) {
    const char c = key[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    if (!letter && !(digit && i > 0)) return false;
  }
  return true;
}

}  // namespace

std::vector<Violation> validate(const json& schema, const json& instance) {
  return validateInstance(schema, instance);
}

std::vector<Violation> validate(const json& schema, const nlohmann::ordered_json& instance) {
  return validateInstance(schema, instance);
}

std::string memberPath(const std::string& parent, const std::string& key) {
  if (isIdentifier(key)) return parent + "." + key;
  return parent + "[" + json(key).dump() + "]";
}

std::string indexPath(const std::string& parent, std::size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

}  // namespace tb::json_schema
