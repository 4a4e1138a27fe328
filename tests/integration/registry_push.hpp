// Pushes the test image: a two-platform OCI index (amd64, arm64) whose image
// manifests have no layers, only a config blob declaring CUDA in Env
// (tests/data/registry). Small enough to push in milliseconds, real enough
// that the client walks index -> manifest -> config exactly as for NGC.
#pragma once

#include <string>
#include <vector>

#include "tb/common/expected.hpp"

namespace tb::registry::test {

/// What was pushed, for tests to compare against.
struct PushedImage {
  std::string indexDigest;
  std::vector<std::string> platformDigests;  ///< amd64, arm64
};

/// Pushes the blobs, both manifests and the index under every tag. Works
/// with `auth: silly` too (any Authorization header is accepted there).
[[nodiscard]] Expected<PushedImage> pushTwoPlatformImage(const std::string& host,
                                                         const std::string& repository,
                                                         const std::vector<std::string>& tags);

}  // namespace tb::registry::test
