// Missing declarations print as "-" in text and null in JSON: an image that
// declares no CUDA is worth seeing, not an error.
#include "registry_output.hpp"

#include <ostream>

#include "tb/registry/image_declaration.hpp"

namespace tb::cli {
namespace {

Json optionalText(const std::optional<std::string>& value) {
  return value ? Json(*value) : Json(nullptr);
}

}  // namespace

Json tagsToJson(const registry::ImageReference& repository, const std::vector<std::string>& tags) {
  Json document;
  document["registry"] = repository.registry;
  document["repository"] = repository.repository;
  document["count"] = tags.size();
  document["tags"] = tags;
  return document;
}

void printTags(std::ostream& out, const registry::ImageReference& repository,
               const std::vector<std::string>& tags) {
  for (const std::string& tag : tags) out << tag << '\n';
  out << '\n'
      << tags.size() << (tags.size() == 1 ? " tag" : " tags") << " in " << repository.registry
      << "/" << repository.repository << ".\n";
}

Json inspectionToJson(const registry::ImageReference& reference,
                      const registry::ImageInspection& inspection) {
  Json document;
  document["reference"] = inspection.reference;
  document["registry"] = reference.registry;
  document["repository"] = reference.repository;
  document["tag"] = reference.manifestReference();
  document["digest"] = inspection.digest;
  document["media_type"] = inspection.mediaType;
  Json platforms = Json::array();
  for (const registry::PlatformImage& image : inspection.platforms) {
    Json entry;
    entry["platform"] = image.platform.name();
    entry["os"] = image.platform.os;
    entry["architecture"] = image.platform.architecture;
    entry["variant"] = image.platform.variant;
    entry["digest"] = image.platform.digest;
    entry["cuda_version"] = optionalText(image.config.cudaVersion);
    entry["cuda_driver_version"] = optionalText(image.config.cudaDriverVersion);
    const auto major = registry::declaredDriverMajor(image.config);
    entry["required_driver"] = major ? Json(*major) : Json(nullptr);
    entry["nvidia_require_cuda"] = optionalText(image.config.requireCuda);
    platforms.push_back(std::move(entry));
  }
  document["platforms"] = std::move(platforms);
  return document;
}

void printInspection(std::ostream& out, const registry::ImageInspection& inspection) {
  out << "Image:  " << inspection.reference << '\n'
      << "Digest: " << inspection.digest << '\n'
      << "Type:   " << inspection.mediaType << "\n\n";
  TextTable table({"PLATFORM", "CUDA", "DRIVER", "NVIDIA_REQUIRE_CUDA"});
  for (const registry::PlatformImage& image : inspection.platforms) {
    table.addRow({image.platform.name(), image.config.cudaVersion.value_or("-"),
                  image.config.cudaDriverVersion.value_or("-"),
                  image.config.requireCuda.value_or("-")});
  }
  table.print(out);
}

}  // namespace tb::cli
