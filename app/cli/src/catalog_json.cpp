// Components are an object keyed by name because scripts look them up by
// name (`.components.torch`); the catalog keeps them as an ordered list, and
// ordered JSON keeps that order on output.
#include "catalog_json.hpp"

namespace tb::cli {

Json architecturesToJson(const std::vector<catalog::CpuArch>& architectures) {
  Json out = Json::array();
  for (const catalog::CpuArch arch : architectures) out.push_back(catalog::toString(arch));
  return out;
}

Json releaseToJson(const catalog::Release& release) {
  Json forwardCompat = Json::array();
  for (const auto& allowance : release.forwardCompat) {
    forwardCompat.push_back({{"branch", allowance.branch}, {"minimum", allowance.minimum.text()}});
  }
  Json components = Json::object();
  for (const auto& component : release.components) components[component.name] = component.version;

  return Json{
      {"tag", release.tag},
      {"image", release.image},
      {"vpc_image_pattern", release.vpcImagePattern},
      {"vpc_regions", release.vpcRegions},
      {"cuda", release.cudaVersion},
      {"required_driver", release.requiredDriverMajor},
      {"architectures", architecturesToJson(release.architectures)},
      {"forward_compat", std::move(forwardCompat)},
      {"must_upgrade", release.mustUpgradeBranches},
      {"base_image", release.baseImage},
      {"components", std::move(components)},
      {"highlights", release.highlights},
      {"notes_url", release.notesUrl},
  };
}

Json catalogToJson(const catalog::Catalog& catalog) {
  Json releases = Json::array();
  for (const auto& release : catalog.releases) releases.push_back(releaseToJson(release));
  return Json{
      {"catalog_version", catalog.catalogVersion},
      {"sources", catalog.sources},
      {"releases", std::move(releases)},
  };
}

}  // namespace tb::cli
