// An image reference split into the parts the registry API needs. Docker's
// shorthand ("ubuntu:24.04" means registry-1.docker.io/library/ubuntu) is
// resolved here once, so the client only ever sees a host and a repository.
#pragma once

#include <string>
#include <string_view>

#include "tb/common/expected.hpp"

namespace tb::registry {

/// "host[:port]/repository[:tag][@digest]", resolved.
struct ImageReference {
  std::string registry;    ///< "127.0.0.1:5000", "registry-1.docker.io"
  std::string repository;  ///< "egslingjun/training-nv-pytorch"
  std::string tag;         ///< empty when not given
  std::string digest;      ///< "sha256:..."; empty when not given

  /// The tag or digest to fetch a manifest by (the digest wins).
  [[nodiscard]] std::string manifestReference() const { return digest.empty() ? tag : digest; }
  /// "registry/repository[:tag][@digest]".
  [[nodiscard]] std::string toString() const;
};

/// Whether the reference must name a tag or digest (inspect) or must not
/// (listing tags of a repository).
enum class TagPolicy { Required, Forbidden };

/// Parses and validates a reference; errors are BadInput and name the text.
[[nodiscard]] Expected<ImageReference> parseImageReference(std::string_view text, TagPolicy policy);

/// True for 127.0.0.1, ::1 and localhost (with or without a port): the only
/// hosts plain HTTP is allowed to.
[[nodiscard]] bool isLoopbackRegistry(std::string_view registry);

}  // namespace tb::registry
