// Docker's reference grammar, reduced to what a user types: the first path
// component is a registry host only when it looks like one (has a dot or a
// port, or is localhost), as `docker pull` decides.
#include "tb/registry/image_reference.hpp"

#include <algorithm>
#include <cctype>

namespace tb::registry {
namespace {

constexpr std::string_view kDockerHub = "registry-1.docker.io";

Error badReference(std::string_view text, const std::string& why) {
  return makeError(ErrorKind::BadInput, "image reference '" + std::string(text) + "' " + why);
}

bool looksLikeHost(std::string_view component) {
  return component.find('.') != std::string_view::npos ||
         component.find(':') != std::string_view::npos || component == "localhost";
}

// Repository path components: lowercase letters, digits and separators.
bool validRepository(std::string_view name) {
  if (name.empty() || name.front() == '/' || name.back() == '/') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return std::islower(u) || std::isdigit(u) || c == '.' || c == '_' || c == '-' || c == '/';
  });
}

bool validTag(std::string_view tag) {
  if (tag.empty() || tag.size() > 128 || tag.front() == '.' || tag.front() == '-') return false;
  return std::all_of(tag.begin(), tag.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return std::isalnum(u) || c == '.' || c == '_' || c == '-';
  });
}

bool validDigest(std::string_view digest) {
  constexpr std::string_view kPrefix = "sha256:";
  if (!digest.starts_with(kPrefix) || digest.size() != kPrefix.size() + 64) return false;
  return std::all_of(digest.begin() + static_cast<std::ptrdiff_t>(kPrefix.size()), digest.end(),
                     [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
}

}  // namespace

std::string ImageReference::toString() const {
  std::string text = registry + "/" + repository;
  if (!tag.empty()) text += ":" + tag;
  if (!digest.empty()) text += "@" + digest;
  return text;
}

Expected<ImageReference> parseImageReference(std::string_view text, TagPolicy policy) {
  if (text.empty()) return badReference(text, "is empty; give REGISTRY/REPOSITORY[:TAG]");
  if (text.find_first_of(" \t\r\n") != std::string_view::npos) {
    return badReference(text, "contains whitespace");
  }
  ImageReference reference;
  std::string_view rest = text;
  if (const auto at = rest.find('@'); at != std::string_view::npos) {
    reference.digest = std::string(rest.substr(at + 1));
    rest = rest.substr(0, at);
    if (!validDigest(reference.digest)) {
      return badReference(text, "has a malformed digest '" + reference.digest +
                                    "' (expected sha256: and 64 hex digits)");
    }
  }
  const auto slash = rest.find('/');
  if (slash != std::string_view::npos && looksLikeHost(rest.substr(0, slash))) {
    reference.registry = std::string(rest.substr(0, slash));
    rest = rest.substr(slash + 1);
  } else {
    reference.registry = std::string(kDockerHub);
  }
  const auto colon = rest.rfind(':');
  if (colon != std::string_view::npos) {
    reference.tag = std::string(rest.substr(colon + 1));
    rest = rest.substr(0, colon);
    if (!validTag(reference.tag)) {
      return badReference(text, "has an invalid tag '" + reference.tag + "'");
    }
  }
  if (!validRepository(rest)) {
    return badReference(text, "has an invalid repository '" + std::string(rest) +
                                  "' (lowercase letters, digits, '.', '_', '-', '/')");
  }
  reference.repository = std::string(rest);
  if (reference.registry == kDockerHub && reference.repository.find('/') == std::string::npos) {
    reference.repository = "library/" + reference.repository;
  }
  const bool named = !reference.tag.empty() || !reference.digest.empty();
  if (policy == TagPolicy::Required && !named) {
    return badReference(text, "has no tag; add one, for example ':25.10-serverless'");
  }
  if (policy == TagPolicy::Forbidden && named) {
    return badReference(text, "names a tag or digest; give the repository only");
  }
  return reference;
}

bool isLoopbackRegistry(std::string_view registry) {
  std::string_view host = registry;
  if (host.starts_with("[")) {
    host = host.substr(
        1, host.find(']') == std::string_view::npos ? host.size() - 1 : host.find(']') - 1);
  } else if (const auto colon = host.rfind(':'); colon != std::string_view::npos) {
    host = host.substr(0, colon);
  }
  return host == "127.0.0.1" || host == "localhost" || host == "::1";
}

}  // namespace tb::registry
