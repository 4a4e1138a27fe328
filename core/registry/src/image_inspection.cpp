// An inspection walks index -> image manifest -> config blob for each
// platform: three small documents per platform and never a layer, which is
// what makes checking a tag cheap compared with pulling it.
#include "tb/registry/registry_client.hpp"

namespace tb::registry {

Expected<ImageInspection> inspectImage(RegistryClient& client, const std::string& repository,
                                       const std::string& reference) {
  auto manifest = client.fetchManifest(repository, reference);
  if (!manifest) return std::move(manifest).error();
  ImageInspection inspection;
  inspection.reference = client.registry() + "/" + repository +
                         (reference.starts_with("sha256:") ? "@" : ":") + reference;
  inspection.digest = manifest->digest;
  inspection.mediaType = manifest->mediaType;
  if (!manifest->isIndex) {
    auto config = client.fetchImageConfig(repository, manifest->configDigest);
    if (!config) return std::move(config).error();
    Platform platform{config->os, config->architecture, "", manifest->digest, manifest->mediaType};
    inspection.platforms.push_back({std::move(platform), std::move(*config)});
    return inspection;
  }
  for (const Platform& platform : manifest->platforms) {
    // Build attestations are listed as platform unknown/unknown.
    if (platform.os == "unknown") continue;
    auto image = client.fetchManifest(repository, platform.digest);
    if (!image) return std::move(image).error();
    if (image->isIndex) {
      return makeError(ErrorKind::Runtime, "registry " + client.registry() + ": " +
                                               platform.digest +
                                               " is an index inside an index; not supported");
    }
    auto config = client.fetchImageConfig(repository, image->configDigest);
    if (!config) return std::move(config).error();
    inspection.platforms.push_back({platform, std::move(*config)});
  }
  return inspection;
}

}  // namespace tb::registry
