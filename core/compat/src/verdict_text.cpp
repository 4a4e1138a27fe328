// Wording of the verdict. Each function returns one complete sentence that a
// user who has never read NVIDIA's compatibility guide can act on; numbers
// are printed as the user wrote them (DriverVersion::text keeps "535.104.05").
#include "verdict_text.hpp"

#include "tb/common/text.hpp"

namespace tb::compat::text {
namespace {

using catalog::DriverVersion;
using catalog::Release;

std::string branchName(int branch) { return "R" + std::to_string(branch); }

/// "amd64", "amd64 and arm64", "amd64, arm64 and riscv64".
std::string andList(const std::vector<std::string>& items) {
  if (items.empty()) return "";
  if (items.size() == 1) return items.front();
  std::vector<std::string> head(items.begin(), items.end() - 1);
  return joinList(head) + " and " + items.back();
}

std::string requirement(const Release& release) {
  return release.tag + " requires driver " + std::to_string(release.requiredDriverMajor) +
         " or newer (it is built on CUDA " + release.cudaVersion + ")";
}

/// A "YYYY-MM" end of life counts from the first day of that month: the
/// string "2026-06" sorts before every date of June 2026.
bool hasReached(std::string_view endOfLife, std::string_view today) { return endOfLife < today; }

}  // namespace

std::string displayGpuName(std::string_view name) {
  std::string_view shown = trim(name);
  if (shown.size() > 7 && toLower(shown.substr(0, 7)) == "nvidia ") shown.remove_prefix(7);
  return std::string(shown);
}

std::string architectureMissing(const Release& release, catalog::CpuArch arch) {
  std::vector<std::string> published;
  for (const auto published_arch : release.architectures) {
    published.emplace_back(catalog::toString(published_arch));
  }
  const std::string where =
      published.empty() ? "for no CPU architecture"
                        : "for " + andList(published) + (published.size() == 1 ? " only" : "");
  return release.tag + " is published " + where + "; this host is " +
         std::string(catalog::toString(arch)) + ".";
}

std::string releasesForArchitecture(const catalog::Catalog& catalog, catalog::CpuArch arch) {
  std::vector<std::string> tags;
  for (const auto& release : catalog.releases) {
    if (release.hasArchitecture(arch)) tags.push_back(release.tag);
  }
  const std::string name(catalog::toString(arch));
  if (tags.empty()) return "No release in the catalog is published for " + name + ".";
  return "Releases published for " + name + ": " + joinList(tags) + ".";
}

std::string noDriver(const Release& release) {
  return "There is no NVIDIA driver on this machine; " + requirement(release) + ".";
}

std::string driverMeetsRequirement(const Release& release, const DriverVersion& driver) {
  return "Driver " + driver.text() + " meets the requirement: " + requirement(release) + ".";
}

std::string driverTooOld(const Release& release, const DriverVersion& driver) {
  return "Driver " + driver.text() + " is older than the release needs: " + requirement(release) +
         ".";
}

std::string forwardCompatibleBecause(const Release& release,
                                     const catalog::ForwardCompatAllowance& allowance,
                                     std::string_view gpu) {
  return release.tag + " allows " + branchName(allowance.branch) + " drivers from " +
         allowance.minimum.text() + " on data-center GPUs in forward-compatibility mode, and " +
         std::string(gpu) + " is a data-center GPU, so the compatibility libraries in the " +
         "image bridge the gap.";
}

std::string belowBranchMinimum(const Release& release, const DriverVersion& driver,
                               const catalog::ForwardCompatAllowance& allowance) {
  return driver.text() + " is below " + allowance.minimum.text() + ", the first " +
         branchName(allowance.branch) + " driver that " + release.tag +
         " allows in forward-compatibility mode.";
}

std::string branchMustUpgrade(const Release& release, int branch) {
  return "The " + release.tag + " release notes list " + branchName(branch) +
         " among the branches that must upgrade: it is not forward-compatible with CUDA " +
         release.cudaVersion + ".";
}

std::string branchNotAllowed(const Release& release, int branch) {
  if (release.forwardCompat.empty()) {
    return release.tag + " allows no older driver branch in forward-compatibility mode, so " +
           branchName(branch) + " cannot run it.";
  }
  std::vector<std::string> allowed;
  for (const auto& allowance : release.forwardCompat) {
    allowed.push_back(branchName(allowance.branch) + " from " + allowance.minimum.text());
  }
  return release.tag + " does not allow " + branchName(branch) +
         " in forward-compatibility mode; it allows only " + andList(allowed) + ".";
}

std::string notDataCenter(GpuClass gpuClass, std::string_view gpu) {
  const std::string name(gpu);
  switch (gpuClass) {
    case GpuClass::Consumer:
      return name + " is a consumer GPU: forward compatibility needs a data-center GPU.";
    case GpuClass::Workstation:
      return name + " is a workstation GPU: forward compatibility needs a data-center GPU " +
             "(NVIDIA supports it on only a few NGC-ready RTX cards).";
    case GpuClass::DataCenter:
    case GpuClass::Unknown: break;
  }
  if (name.empty()) {
    return "The GPU is not known, so forward compatibility, which needs a data-center GPU, "
           "cannot be assumed.";
  }
  return name + " is not recognised as a data-center GPU, so forward compatibility cannot be " +
         "assumed.";
}

std::string upgradeAdvice(const Release& release, AdviceVerb verb,
                          const std::optional<DriverVersion>& target,
                          const catalog::DriverBranch* longTermBranch) {
  const std::string action =
      verb == AdviceVerb::Install ? "Install driver " : "Upgrade the driver to ";
  std::string sentence =
      target ? action + target->text() + " or newer"
             : action + "branch " + branchName(release.requiredDriverMajor) + " or newer";
  if (longTermBranch != nullptr) {
    const std::string until =
        longTermBranch->endOfLife ? " (supported until " + *longTermBranch->endOfLife + ")" : "";
    const std::string lts = branchName(longTermBranch->branch);
    if (target && target->major() == longTermBranch->branch) {
      sentence += "; " + lts + " is the current long-term support branch" + until;
    } else {
      const std::string alternative =
          verb == AdviceVerb::Install ? ", or a driver of " : ", or to ";
      sentence += alternative + lts + ", the current long-term support branch" + until;
    }
  }
  return sentence + ".";
}

std::string entrypointWarning() {
  return "Only the image's entrypoint switches the forward-compatibility libraries on: do not "
         "override the ENTRYPOINT, and in Kubernetes pass arguments with `args:` rather than "
         "setting `command:`, or CUDA will fail to start.";
}

std::string contradictoryNotesWarning(const Release& release, int branch) {
  return "The " + release.tag + " release notes also list " + branchName(branch) +
         " among the branches that must upgrade; they contradict themselves, and the explicit "
         "allowance is taken here, but upgrading is the safe choice.";
}

std::string notInMatrixWarning(int branch, const catalog::DriverBranch* lifecycle,
                               std::string_view today) {
  const std::string name = branchName(branch);
  std::string since;
  if (lifecycle != nullptr && lifecycle->endOfLife && hasReached(*lifecycle->endOfLife, today)) {
    since = " (since " + *lifecycle->endOfLife + ")";
  }
  return name + " is not in NVIDIA's current forward-compatibility matrix: it is end of life" +
         since + " and not a supported target, so NVIDIA will not fix problems on it.";
}

std::string endOfLifeWarning(const catalog::DriverBranch& lifecycle, std::string_view today) {
  const std::string name = branchName(lifecycle.branch);
  const std::string& endOfLife = lifecycle.endOfLife.value();
  if (hasReached(endOfLife, today)) {
    return name + " reached end of life in " + endOfLife +
           ": NVIDIA no longer fixes it, so plan the upgrade now.";
  }
  return name + " reaches end of life in " + endOfLife + "; plan the upgrade before then.";
}

std::string badDateWarning(std::string_view given, std::string_view used) {
  return "The date '" + std::string(given) + "' is not of the form YYYY-MM-DD; end-of-life " +
         "checks used today's date, " + std::string(used) + ".";
}

}  // namespace tb::compat::text
