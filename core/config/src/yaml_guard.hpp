// What yaml-cpp 0.7 (Debian 12's) must not be given, found by fuzzing (the
// config_detect and config_k8s targets): a ',' outside any flow collection
// right after a complete node ("a",b  [a],b  {},b  'a',b) or where a value
// starts (a line ",k"). Its parser never returns on such a document. Such a
// comma is never valid YAML, so the manifest validator reports it itself and
// does not call the parser; nor does it hand the parser bytes that are not
// text.
#pragma once

#include <optional>
#include <string_view>
#include <utility>

namespace tb::config::detail {

/// The 1-based line of the first ',' outside any flow collection that
/// follows a quoted scalar or a closed [ ] / { }, or starts a value; nothing
/// when there is none.
[[nodiscard]] std::optional<int> strayFlowEntryLine(std::string_view yaml);

/// The line and byte of the first control character YAML does not allow
/// (C0 but tab, LF and CR, and DEL): such bytes mean the file is not text,
/// and yaml-cpp is not given them either.
[[nodiscard]] std::optional<std::pair<int, unsigned char>> controlCharacter(std::string_view yaml);

}  // namespace tb::config::detail
