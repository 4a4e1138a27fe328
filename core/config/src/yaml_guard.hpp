// What yaml-cpp 0.7 (Debian 12's) must not be left alone with, found by
// fuzzing (the config_detect and config_k8s targets).
//
// YAML::LoadAll never returns on a stream whose next token can neither start
// nor continue a node, such as a ',' outside any flow collection ("a",b  or a
// line ",k"): HandleNextDocument reports an empty document without consuming
// that token, so the next document starts at the same place, forever, each
// one allocating. loadAllDocuments reads the stream once with an event
// handler that notices a document starting where the previous one started,
// stops there with a parse error at that mark, and builds the nodes only
// from a stream that reads to its end. It is exact, where a lexer written
// beside yaml-cpp's can only approximate which input sends it round.
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace tb::config::detail {

/// Every document of the stream, as YAML::LoadAll returns them. Throws
/// YAML::ParserException (with the mark of the token) where yaml-cpp would
/// loop, and whatever YAML::LoadAll throws otherwise.
[[nodiscard]] std::vector<YAML::Node> loadAllDocuments(std::string_view yaml);

/// The line and byte of the first control character YAML does not allow
/// (C0 but tab, LF and CR, and DEL): such bytes mean the file is not text,
/// and yaml-cpp is not given them either.
[[nodiscard]] std::optional<std::pair<int, unsigned char>> controlCharacter(std::string_view yaml);

}  // namespace tb::config::detail
