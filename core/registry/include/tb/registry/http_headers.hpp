// Parsers for the two headers the registry protocol steers clients with:
// WWW-Authenticate (which auth to do and where to get a token) and Link (the
// next page of tags). Both are lenient about case and whitespace, as servers
// differ.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tb::registry {

/// The auth scheme a 401 asks for.
enum class AuthScheme { Basic, Bearer, Unknown };

/// A parsed WWW-Authenticate challenge.
struct AuthChallenge {
  AuthScheme scheme = AuthScheme::Unknown;
  std::string realm;    ///< Bearer: the token endpoint URL
  std::string service;  ///< Bearer: passed back to the token endpoint
  std::string scope;    ///< Bearer: "repository:<name>:pull"
};

/// Parses `Bearer realm="..",service="..",scope=".."` or `Basic realm=".."`.
[[nodiscard]] AuthChallenge parseAuthChallenge(std::string_view header);

/// The target of `<url>; rel="next"`, if the header has one.
[[nodiscard]] std::optional<std::string> parseNextLink(std::string_view header);

/// Percent-encodes a query value (RFC 3986 unreserved characters kept).
[[nodiscard]] std::string urlEncode(std::string_view text);

}  // namespace tb::registry
