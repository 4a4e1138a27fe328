// Advice is computed, not looked up: for an unsupported release it reruns the
// verdict over the catalog to name the releases that would run on the same
// host, which is usually the quickest way forward.
#include "compat_advice.hpp"

#include "tb/common/text.hpp"

namespace tb::cli {
namespace {

std::vector<std::string> tagsWithArchitecture(const catalog::Catalog& catalog,
                                              catalog::CpuArch arch) {
  std::vector<std::string> tags;
  for (const auto& release : catalog.releases) {
    if (release.hasArchitecture(arch)) tags.push_back(release.tag);
  }
  return tags;
}

std::vector<std::string> tagsThatRun(const catalog::Catalog& catalog,
                                     const compat::CompatQuery& query) {
  std::vector<std::string> tags;
  for (const auto& release : catalog.releases) {
    const auto verdict = compat::evaluateCompat(release, catalog, query);
    if (verdict.status == compat::VerdictStatus::Supported) {
      tags.push_back(release.tag);
    } else if (verdict.status == compat::VerdictStatus::ForwardCompatible) {
      tags.push_back(release.tag + " (forward-compatible)");
    }
  }
  return tags;
}

std::string driverBranchText(int major) { return "R" + std::to_string(major); }

}  // namespace

std::vector<std::string> nextSteps(const catalog::Release& release, const catalog::Catalog& catalog,
                                   const compat::CompatQuery& query,
                                   const compat::CompatVerdict& verdict) {
  std::vector<std::string> steps;
  switch (verdict.status) {
    case compat::VerdictStatus::Supported:
      steps.push_back("Nothing to change: pull " + release.image + " and run it.");
      return steps;
    case compat::VerdictStatus::ForwardCompatible:
      steps.push_back(
          "Start the container through the image's own entrypoint (no --entrypoint, "
          "no Kubernetes command:), which switches the CUDA compat libraries on.");
      steps.push_back("For full support without compat libraries, upgrade the driver to " +
                      driverBranchText(release.requiredDriverMajor) + " or newer.");
      return steps;
    case compat::VerdictStatus::Unsupported: break;
  }

  const std::string_view arch = catalog::toString(query.arch);
  if (!release.hasArchitecture(query.arch)) {
    const auto tags = tagsWithArchitecture(catalog, query.arch);
    steps.push_back(tags.empty() ? "No release in the catalog is published for " +
                                       std::string(arch) + "; run on an amd64 host."
                                 : "Use a release published for " + std::string(arch) + ": " +
                                       joinList(tags) + ".");
    return steps;
  }
  if (!query.driver) {
    steps.push_back("Install an NVIDIA driver of branch " +
                    driverBranchText(release.requiredDriverMajor) +
                    " or newer, or give --driver to judge another host.");
    return steps;
  }
  if (verdict.upgradeTo) {
    steps.push_back("Upgrade the NVIDIA driver to " + verdict.upgradeTo->text() + " or newer.");
  } else {
    steps.push_back("Upgrade the NVIDIA driver to branch " +
                    driverBranchText(release.requiredDriverMajor) + " or newer.");
  }
  const auto runnable = tagsThatRun(catalog, query);
  if (!runnable.empty()) {
    steps.push_back("Or use a release this host can run now: " + joinList(runnable) + ".");
  }
  return steps;
}

}  // namespace tb::cli
