// Kubernetes manifests are built as ordered JSON documents (readable code,
// stable key order) and written out by yaml-cpp. Strings that YAML would read
// as another type ("true", "8", "null") are double-quoted: an env value of
// true unquoted is a bool, and Kubernetes rejects it.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tb::config::detail {

/// The documents as one YAML stream ("---" between documents), each
/// preceded by its comment lines.
struct YamlDocument {
  std::vector<std::string> comments;
  nlohmann::ordered_json body;
};

[[nodiscard]] std::string emitYamlStream(const std::vector<YamlDocument>& documents);

/// Whether a plain (unquoted) YAML scalar with this text would be read as
/// something other than a string.
[[nodiscard]] bool plainScalarIsNotString(const std::string& text);

}  // namespace tb::config::detail
