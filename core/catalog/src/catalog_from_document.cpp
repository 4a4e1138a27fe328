// Turns a checked catalog document into plain structs. By the time this runs the
// schema and the rules have passed, so a field that is missing or of the wrong
// type here is a disagreement between this file and catalog.schema.json: a bug,
// which the json exception surfaces rather than a default value hiding it.
#include <algorithm>

#include "catalog_document.hpp"

namespace tb::catalog::detail {
namespace {

using Json = nlohmann::ordered_json;

DriverVersion driverAt(const Json& object, const char* key) {
  return DriverVersion::parse(object.at(key).get<std::string>()).value();
}

BranchKind branchKindFrom(const std::string& text) {
  if (text == "long-term-support") return BranchKind::LongTermSupport;
  if (text == "production") return BranchKind::Production;
  if (text == "new-feature") return BranchKind::NewFeature;
  return BranchKind::Legacy;  // the schema's enum admits nothing else
}

Release releaseFrom(const Json& item) {
  Release release;
  release.tag = item.at("tag").get<std::string>();
  release.image = item.at("image").get<std::string>();
  release.vpcImagePattern = item.at("vpc_image_pattern").get<std::string>();
  release.vpcRegions = item.at("vpc_regions").get<std::vector<std::string>>();
  release.cudaVersion = item.at("cuda_version").get<std::string>();
  release.requiredDriverMajor = item.at("required_driver").get<int>();
  for (const auto& allowance : item.at("forward_compat")) {
    release.forwardCompat.push_back(
        ForwardCompatAllowance{allowance.at("branch").get<int>(), driverAt(allowance, "minimum")});
  }
  release.mustUpgradeBranches = item.at("must_upgrade").get<std::vector<int>>();
  for (const auto& arch : item.at("architectures")) {
    release.architectures.push_back(parseCpuArch(arch.get<std::string>()).value());
  }
  // Document order: the file lists the components in the order worth reading.
  for (const auto& [name, version] : item.at("components").items()) {
    release.components.push_back(Component{name, version.get<std::string>()});
  }
  release.highlights = item.at("highlights").get<std::vector<std::string>>();
  release.baseImage = item.value("base_image", std::string());
  release.notesUrl = item.at("notes_url").get<std::string>();
  return release;
}

DriverBranch branchFrom(const Json& item) {
  DriverBranch branch;
  branch.branch = item.at("branch").get<int>();
  branch.kind = branchKindFrom(item.at("kind").get<std::string>());
  if (const auto& eol = item.at("end_of_life"); !eol.is_null()) {
    branch.endOfLife = eol.get<std::string>();
  }
  branch.inForwardCompatMatrix = item.at("in_forward_compat_matrix").get<bool>();
  branch.representative = driverAt(item, "representative");
  branch.maxCuda = item.at("max_cuda").get<std::string>();
  return branch;
}

}  // namespace

Catalog catalogFromDocument(const nlohmann::ordered_json& document, const std::string& sourceName) {
  Catalog catalog;
  catalog.schemaVersion = document.at("schema_version").get<int>();
  catalog.catalogVersion = document.at("catalog_version").get<std::string>();
  catalog.sources.push_back(sourceName);
  for (const auto& item : document.at("releases")) catalog.releases.push_back(releaseFrom(item));
  if (const auto rows = document.find("toolkit_drivers"); rows != document.end()) {
    for (const auto& row : *rows) {
      catalog.toolkitDrivers.push_back(ToolkitDriverRequirement{
          row.at("cuda_release").get<std::string>(), row.at("cuda_version").get<std::string>(),
          driverAt(row, "minimum_linux")});
    }
  }
  if (const auto branches = document.find("driver_branches"); branches != document.end()) {
    for (const auto& item : *branches) catalog.driverBranches.push_back(branchFrom(item));
  }
  sortCatalog(catalog);
  return catalog;
}

void sortCatalog(Catalog& catalog) {
  // Tags are fixed-width YY.MM, so text order is release order.
  std::stable_sort(catalog.releases.begin(), catalog.releases.end(),
                   [](const Release& a, const Release& b) { return a.tag < b.tag; });
  const auto cudaKey = [](const ToolkitDriverRequirement& row) {
    return parseCudaVersion(row.cudaVersion).value_or(std::array<int, 3>{0, 0, 0});
  };
  std::stable_sort(catalog.toolkitDrivers.begin(), catalog.toolkitDrivers.end(),
                   [&](const auto& a, const auto& b) { return cudaKey(a) < cudaKey(b); });
  std::stable_sort(
      catalog.driverBranches.begin(), catalog.driverBranches.end(),
      [](const DriverBranch& a, const DriverBranch& b) { return a.branch < b.branch; });
}

}  // namespace tb::catalog::detail
