// What the registry's JSON documents say, as plain structs: the tag list, a
// manifest (an index of platforms or a single image), an image configuration
// and an error body. Parsing is separate from HTTP so that malformed
// documents can be tested directly.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tb/common/expected.hpp"

namespace tb::registry {

/// Media types a manifest GET accepts: without the index types a registry
/// answers 404 for a multi-platform tag (registry 2.8 does).
inline constexpr std::string_view kOciIndex = "application/vnd.oci.image.index.v1+json";
inline constexpr std::string_view kDockerManifestList =
    "application/vnd.docker.distribution.manifest.list.v2+json";
inline constexpr std::string_view kOciManifest = "application/vnd.oci.image.manifest.v1+json";
inline constexpr std::string_view kDockerManifest =
    "application/vnd.docker.distribution.manifest.v2+json";

/// One platform of an index, or the only one of a single-image manifest.
struct Platform {
  std::string os;            ///< "linux"
  std::string architecture;  ///< "amd64", "arm64"
  std::string variant;       ///< "v8"; often empty
  std::string digest;        ///< the platform's image manifest
  std::string mediaType;

  /// "linux/arm64/v8" (variant only when present).
  [[nodiscard]] std::string name() const;
};

/// A manifest as fetched by tag or digest.
struct Manifest {
  std::string digest;               ///< Docker-Content-Digest of the document
  std::string mediaType;            ///< from the document, else the Content-Type
  bool isIndex = false;             ///< an OCI index or Docker manifest list
  std::vector<Platform> platforms;  ///< index entries (empty for a single image)
  std::string configDigest;         ///< single image only: its config blob
};

/// The parts of an image configuration blob a compatibility check needs.
struct ImageConfig {
  std::string os;
  std::string architecture;
  std::vector<std::string> env;                  ///< "NAME=value", as declared
  std::optional<std::string> cudaVersion;        ///< CUDA_VERSION
  std::optional<std::string> requireCuda;        ///< NVIDIA_REQUIRE_CUDA
  std::optional<std::string> cudaDriverVersion;  ///< CUDA_DRIVER_VERSION

  /// The value of one variable of Env, if declared.
  [[nodiscard]] std::optional<std::string> envValue(std::string_view name) const;
};

/// The first entry of a registry error body ({"errors":[{code,message}]}).
struct RegistryErrorBody {
  std::string code;     ///< "MANIFEST_UNKNOWN", "UNAUTHORIZED", ...
  std::string message;  ///< "manifest unknown"
};

/// `{"name":..,"tags":[..]}` -> the tags (null tags means none). `source`
/// names the document in errors.
[[nodiscard]] Expected<std::vector<std::string>> parseTagList(std::string_view body,
                                                              std::string_view source);
/// A manifest document; `contentType` is used when it has no mediaType.
[[nodiscard]] Expected<Manifest> parseManifest(std::string_view body, std::string_view contentType,
                                               std::string_view source);
/// An image configuration blob.
[[nodiscard]] Expected<ImageConfig> parseImageConfig(std::string_view body,
                                                     std::string_view source);
/// The registry's error, when the body is one.
[[nodiscard]] std::optional<RegistryErrorBody> parseErrorBody(std::string_view body);

/// Sorted, without duplicates: registries may page with overlaps and 2.8
/// returns tags unsorted.
[[nodiscard]] std::vector<std::string> normalizeTags(std::vector<std::string> tags);

}  // namespace tb::registry
