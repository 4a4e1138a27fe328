// One wording for every failed registry call, so users and tests can rely on
// it: "registry HOST: GET PATH: HTTP 404 MANIFEST_UNKNOWN (manifest unknown)".
#pragma once

#include <string>

#include "tb/common/expected.hpp"
#include "tb/registry/http_transport.hpp"

namespace tb::registry::detail {

/// The error for a response that is not a success. 4xx (but 429) is bad
/// input: the name, tag or credentials given do not work; 404 is NotFound.
/// 429 and 5xx are runtime failures.
[[nodiscard]] Error httpError(const std::string& what, const HttpResponse& response);

/// "registry HOST: METHOD PATH" with the query string dropped.
[[nodiscard]] std::string describeRequest(const std::string& registry, const std::string& method,
                                          const std::string& path);

}  // namespace tb::registry::detail
