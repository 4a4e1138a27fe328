// The registry is the ground truth for what can be pulled, so the image's
// platforms replace the catalog's architectures outright. CUDA and the
// driver floor come from the one platform that would run on the host; the
// first note names the index digest, so a verdict says which image it saw.
#include "tb/registry/image_declaration.hpp"

#include <algorithm>

#include "tb/catalog/driver_version.hpp"

namespace tb::registry {
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

// Adds the notes and values of the platform that would run on the host.
void applyPlatform(const PlatformImage& image, const catalog::Release* catalogRelease,
                   DeclaredRelease& declared) {
  const ImageConfig& config = image.config;
  const std::string platform = image.platform.name();
  catalog::Release& release = declared.release;
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
}

}  // namespace

const catalog::Release* catalogReleaseForTag(const catalog::Catalog& catalog,
                                             std::string_view registryTag) {
  for (const catalog::Release& release : catalog.releases) {
    if (imageTagOf(release.image) == registryTag) return &release;
  }
  for (const catalog::Release& release : catalog.releases) {
    if (registryTag == release.tag ||
        (registryTag.starts_with(release.tag) && registryTag.size() > release.tag.size() &&
         registryTag[release.tag.size()] == '-')) {
      return &release;
    }
  }
  return nullptr;
}

std::optional<int> declaredDriverMajor(const ImageConfig& config) {
  if (!config.cudaDriverVersion) return std::nullopt;
  auto version = catalog::DriverVersion::parse(*config.cudaDriverVersion);
  if (!version) return std::nullopt;
  return version->major();
}

DeclaredRelease applyDeclaration(const catalog::Release* catalogRelease,
                                 const ImageInspection& inspection, std::string_view registryTag,
                                 catalog::CpuArch arch) {
  DeclaredRelease declared;
  catalog::Release& release = declared.release;
  std::string source = "from the registry: " + inspection.reference;
  if (!inspection.digest.empty()) source += " (" + inspection.digest + ")";
  declared.notes.push_back(source);  // completed below, once the platforms are known
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
  const PlatformImage* runsHere = nullptr;
  for (const PlatformImage& image : inspection.platforms) {
    platformNames.push_back(image.platform.name());
    const auto published = catalog::parseCpuArch(image.platform.architecture);
    if (image.platform.os != "linux" || !published) continue;
    if (std::find(release.architectures.begin(), release.architectures.end(), *published) ==
        release.architectures.end()) {
      release.architectures.push_back(*published);
    }
    if (*published == arch && runsHere == nullptr) runsHere = &image;
  }
  declared.notes.front() += " publishes " + joined(platformNames);
  if (runsHere == nullptr) {
    declared.notes.push_back("the image has no linux/" + std::string(catalog::toString(arch)) +
                             " platform");
    return declared;
  }
  applyPlatform(*runsHere, catalogRelease, declared);
  return declared;
}

}  // namespace tb::registry
