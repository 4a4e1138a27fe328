// The image's platforms replace the catalog's architectures outright: the
// registry is the ground truth for what can be pulled. CUDA and the driver
// floor come from the platform that would run on the host; a value the
// image does not declare keeps the catalog's, and a note says so.
#include "ui/image/registry_declaration.h"

#include <algorithm>

#include "tb/catalog/driver_version.hpp"

namespace tb::ui {
namespace {

std::string imageTagOf(const std::string& reference) {
  const auto colon = reference.rfind(':');
  const auto slash = reference.rfind('/');
  if (colon == std::string::npos || (slash != std::string::npos && colon < slash)) return {};
  return reference.substr(colon + 1);
}

std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text.empty() ? "no platform" : text;
}

}  // namespace

const tb::catalog::Release* catalogReleaseForTag(const tb::catalog::Catalog& catalog,
                                                 std::string_view registryTag) {
  for (const tb::catalog::Release& release : catalog.releases) {
    if (imageTagOf(release.image) == registryTag) return &release;
  }
  for (const tb::catalog::Release& release : catalog.releases) {
    if (registryTag == release.tag ||
        (registryTag.starts_with(release.tag) && registryTag.size() > release.tag.size() &&
         registryTag[release.tag.size()] == '-')) {
      return &release;
    }
  }
  return nullptr;
}

std::optional<int> declaredDriverMajor(const tb::registry::ImageConfig& config) {
  if (!config.cudaDriverVersion) return std::nullopt;
  auto version = tb::catalog::DriverVersion::parse(*config.cudaDriverVersion);
  if (!version) return std::nullopt;
  return version->major();
}

DeclaredRelease applyDeclaration(const tb::catalog::Release* catalogRelease,
                                 const tb::registry::ImageInspection& inspection,
                                 std::string_view registryTag, tb::catalog::CpuArch arch) {
  DeclaredRelease declared;
  tb::catalog::Release& release = declared.release;
  if (catalogRelease != nullptr) {
    release = *catalogRelease;
  } else {
    release.tag = std::string(registryTag);
    release.image = inspection.reference;
    declared.notes.push_back("the catalog has no release for tag " + std::string(registryTag) +
                             ": no forward-compatibility allowances are known");
  }
  release.architectures.clear();
  std::vector<std::string> platformNames;
  const tb::registry::PlatformImage* runsHere = nullptr;
  for (const tb::registry::PlatformImage& image : inspection.platforms) {
    platformNames.push_back(image.platform.name());
    const auto published = tb::catalog::parseCpuArch(image.platform.architecture);
    if (image.platform.os != "linux" || !published) continue;
    if (std::find(release.architectures.begin(), release.architectures.end(), *published) ==
        release.architectures.end()) {
      release.architectures.push_back(*published);
    }
    if (*published == arch && runsHere == nullptr) runsHere = &image;
  }
  declared.notes.insert(declared.notes.begin(), "from the registry: " + inspection.reference +
                                                    " publishes " + joined(platformNames));
  if (runsHere == nullptr) {
    declared.notes.push_back("the image has no linux/" + std::string(tb::catalog::toString(arch)) +
                             " platform");
    return declared;
  }
  const tb::registry::ImageConfig& config = runsHere->config;
  const std::string platform = runsHere->platform.name();
  if (config.cudaVersion) {
    if (catalogRelease != nullptr && *config.cudaVersion != catalogRelease->cudaVersion) {
      declared.notes.push_back(platform + " declares CUDA_VERSION=" + *config.cudaVersion +
                               "; the catalog says CUDA " + catalogRelease->cudaVersion);
    }
    release.cudaVersion = *config.cudaVersion;
  } else {
    declared.notes.push_back(platform + " declares no CUDA_VERSION; the catalog's is used");
  }
  if (const auto major = declaredDriverMajor(config)) {
    if (catalogRelease != nullptr && *major != catalogRelease->requiredDriverMajor) {
      declared.notes.push_back(
          platform + " declares CUDA_DRIVER_VERSION=" + *config.cudaDriverVersion +
          "; the catalog says driver >= " + std::to_string(catalogRelease->requiredDriverMajor));
    }
    release.requiredDriverMajor = *major;
  } else {
    declared.notes.push_back(platform +
                             " declares no usable CUDA_DRIVER_VERSION; the catalog's is used");
  }
  if (config.requireCuda) declared.notes.push_back("NVIDIA_REQUIRE_CUDA=" + *config.requireCuda);
  return declared;
}

}  // namespace tb::ui
