// HttpResponse's header lookups: the transport's and everyone's, so that a
// build without libcurl (curl_transport_unavailable.cpp) keeps them.
#include <string>
#include <string_view>
#include <vector>

#include "tb/common/text.hpp"
#include "tb/registry/http_transport.hpp"

namespace tb::registry {

std::optional<std::string> HttpResponse::header(std::string_view name) const {
  const std::string wanted = toLower(name);
  for (const HttpHeader& candidate : headers) {
    if (toLower(candidate.name) == wanted) return candidate.value;
  }
  return std::nullopt;
}

std::vector<std::string> HttpResponse::headersNamed(std::string_view name) const {
  const std::string wanted = toLower(name);
  std::vector<std::string> values;
  for (const HttpHeader& candidate : headers) {
    if (toLower(candidate.name) == wanted) values.push_back(candidate.value);
  }
  return values;
}

}  // namespace tb::registry
