// The image's platforms replace the catalog's architectures outright: the
// registry is the ground truth for what can be pulled. CUDA and the driver
// floor are taken from the platform that would run here; an image that
// declares neither keeps the catalog's values, and the notes say so.
#include "registry_compat.hpp"

#include <algorithm>

#include "registry_output.hpp"
#include "tb/common/text.hpp"
#include "tb/registry/image_reference.hpp"

namespace tb::cli {
namespace {

const registry::PlatformImage* platformFor(const registry::ImageInspection& inspection,
                                           catalog::CpuArch arch) {
  const auto found = std::find_if(
      inspection.platforms.begin(), inspection.platforms.end(),
      [arch](const registry::PlatformImage& image) {
        return image.platform.os == "linux" &&
               catalog::parseCpuArch(image.platform.architecture) == arch;
      });
  return found == inspection.platforms.end() ? nullptr : &*found;
}

}  // namespace

Expected<RegistryDeclaredRelease> releaseFromRegistry(const catalog::Release& catalogRelease,
                                                      const std::string& imageText,
                                                      catalog::CpuArch arch,
                                                      const RegistryOptions& options,
                                                      std::ostream& err) {
  auto reference = registry::parseImageReference(trim(imageText), registry::TagPolicy::Required);
  if (!reference) return makeError(ErrorKind::BadInput, "--image: " + reference.error().message);
  auto client = makeRegistryClient(reference->registry, options, err);
  if (!client) return std::move(client).error();
  auto inspection =
      registry::inspectImage(**client, reference->repository, reference->manifestReference());
  if (!inspection) return std::move(inspection).error();

  RegistryDeclaredRelease declared{catalogRelease, {}};
  catalog::Release& release = declared.release;
  release.architectures.clear();
  std::vector<std::string> platformNames;
  for (const registry::PlatformImage& image : inspection->platforms) {
    platformNames.push_back(image.platform.name());
    const auto published = catalog::parseCpuArch(image.platform.architecture);
    if (image.platform.os == "linux" && published &&
        std::find(release.architectures.begin(), release.architectures.end(), *published) ==
            release.architectures.end()) {
      release.architectures.push_back(*published);
    }
  }
  declared.notes.push_back("from the registry: " + inspection->reference + " (" +
                           inspection->digest + ") publishes " + joinList(platformNames));
  const registry::PlatformImage* image = platformFor(*inspection, arch);
  if (image == nullptr) {
    declared.notes.push_back("the image has no linux/" + std::string(catalog::toString(arch)) +
                             " platform");
    return declared;
  }
  const registry::ImageConfig& config = image->config;
  if (config.cudaVersion) {
    if (*config.cudaVersion != catalogRelease.cudaVersion) {
      declared.notes.push_back("the image declares CUDA_VERSION=" + *config.cudaVersion +
                               "; the catalog says CUDA " + catalogRelease.cudaVersion);
    }
    release.cudaVersion = *config.cudaVersion;
  } else {
    declared.notes.push_back(image->platform.name() +
                             " declares no CUDA_VERSION; the catalog's is used");
  }
  if (const auto major = declaredDriverMajor(config)) {
    if (*major != catalogRelease.requiredDriverMajor) {
      declared.notes.push_back("the image declares CUDA_DRIVER_VERSION=" +
                               *config.cudaDriverVersion + "; the catalog says driver >= " +
                               std::to_string(catalogRelease.requiredDriverMajor));
    }
    release.requiredDriverMajor = *major;
  } else {
    declared.notes.push_back(image->platform.name() +
                             " declares no usable CUDA_DRIVER_VERSION; the catalog's is used");
  }
  if (config.requireCuda) {
    declared.notes.push_back("NVIDIA_REQUIRE_CUDA=" + *config.requireCuda);
  }
  return declared;
}

}  // namespace tb::cli
