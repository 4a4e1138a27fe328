// Hand-written parsers: the grammar is small (RFC 7235 auth-params, RFC 8288
// links) and a general HTTP library would be a large dependency for two
// headers.
#include "tb/registry/http_headers.hpp"

#include <cctype>

#include "tb/common/text.hpp"

namespace tb::registry {
namespace {

// Reads `name=value` or `name="quoted, value"` from the front of `text`.
bool nextParam(std::string_view& text, std::string& name, std::string& value) {
  text = trim(text);
  while (text.starts_with(",")) text = trim(text.substr(1));
  const auto equals = text.find('=');
  if (equals == std::string_view::npos) return false;
  name = toLower(trim(text.substr(0, equals)));
  text = trim(text.substr(equals + 1));
  value.clear();
  if (text.starts_with("\"")) {
    std::size_t i = 1;
    for (; i < text.size() && text[i] != '"'; ++i) {
      if (text[i] == '\\' && i + 1 < text.size()) ++i;
      value += text[i];
    }
    text = text.substr(i < text.size() ? i + 1 : i);
  } else {
    const auto comma = text.find(',');
    value = std::string(trim(text.substr(0, comma)));
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma);
  }
  return true;
}

}  // namespace

AuthChallenge parseAuthChallenge(std::string_view header) {
  AuthChallenge challenge;
  header = trim(header);
  const auto space = header.find(' ');
  const std::string scheme = toLower(header.substr(0, space));
  if (scheme == "bearer") {
    challenge.scheme = AuthScheme::Bearer;
  } else if (scheme == "basic") {
    challenge.scheme = AuthScheme::Basic;
  }
  std::string_view params =
      space == std::string_view::npos ? std::string_view{} : header.substr(space + 1);
  std::string name;
  std::string value;
  while (nextParam(params, name, value)) {
    if (name == "realm") challenge.realm = value;
    if (name == "service") challenge.service = value;
    if (name == "scope") challenge.scope = value;
  }
  return challenge;
}

std::optional<std::string> parseNextLink(std::string_view header) {
  // A header may hold several links separated by commas outside <...>.
  while (!trim(header).empty()) {
    header = trim(header);
    if (!header.starts_with("<")) return std::nullopt;
    const auto close = header.find('>');
    if (close == std::string_view::npos) return std::nullopt;
    const std::string_view target = header.substr(1, close - 1);
    std::string_view rest = header.substr(close + 1);
    const auto nextLink = rest.find('<');
    const std::string params = toLower(rest.substr(0, nextLink));
    if (params.find("rel=\"next\"") != std::string::npos ||
        params.find("rel=next") != std::string::npos) {
      return std::string(target);
    }
    if (nextLink == std::string_view::npos) return std::nullopt;
    header = rest.substr(nextLink);
  }
  return std::nullopt;
}

std::string urlEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string encoded;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '_' || c == '.' || c == '~') {
      encoded += c;
    } else {
      encoded += '%';
      encoded += kHex[u >> 4];
      encoded += kHex[u & 0x0F];
    }
  }
  return encoded;
}

}  // namespace tb::registry
