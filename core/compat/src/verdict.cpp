// The verdict applies the four rules of verdict.hpp in order and stops at the
// first that decides. Every reason and warning is a whole sentence naming the
// release, the driver and the GPU, because users paste them into tickets; the
// wording of the sentences lives in verdict_text.cpp so that this file reads
// as the rules themselves.
#include "tb/compat/verdict.hpp"

#include <array>

#include "tb/common/text.hpp"
#include "tb/common/utc_time.hpp"
#include "verdict_text.hpp"

namespace tb::compat {
namespace {

using catalog::Catalog;
using catalog::DriverBranch;
using catalog::DriverVersion;
using catalog::Release;

bool isIsoDate(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (i == 4 || i == 7) continue;
    if (text[i] < '0' || text[i] > '9') return false;
  }
  return true;
}

/// "12.8.1" -> {12, 8, 1}; "12.8" -> {12, 8, 0}. Nothing when not numeric.
std::optional<std::array<long long, 3>> parseCudaVersion(std::string_view text) {
  const auto parts = split(trim(text), '.');
  if (parts.empty() || parts.size() > 3) return std::nullopt;
  std::array<long long, 3> numbers{0, 0, 0};
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto number = parseUnsigned(parts[i]);
    if (!number) return std::nullopt;
    numbers[i] = *number;
  }
  return numbers;
}

/// NVIDIA's minimum driver for the release's own CUDA version: the newest
/// row of the same major.minor that is not newer than the release's CUDA.
std::optional<DriverVersion> cudaMinimumDriver(const Release& release, const Catalog& catalog) {
  const auto wanted = parseCudaVersion(release.cudaVersion);
  if (!wanted) return std::nullopt;
  const catalog::ToolkitDriverRequirement* best = nullptr;
  std::array<long long, 3> bestVersion{};
  for (const auto& row : catalog.toolkitDrivers) {
    const auto version = parseCudaVersion(row.cudaVersion);
    if (!version || (*version)[0] != (*wanted)[0] || (*version)[1] != (*wanted)[1]) continue;
    if (*version > *wanted || (best != nullptr && *version <= bestVersion)) continue;
    best = &row;
    bestVersion = *version;
  }
  if (best == nullptr) return std::nullopt;
  return best->minimumLinux;
}

/// The smallest published driver that meets both the release's required
/// branch and its CUDA version's minimum; a branch's representative driver
/// when NVIDIA's table has none that new.
std::optional<DriverVersion> upgradeTarget(const Release& release, const Catalog& catalog) {
  const auto floor = cudaMinimumDriver(release, catalog);
  std::optional<DriverVersion> best;
  for (const auto& row : catalog.toolkitDrivers) {
    const DriverVersion& candidate = row.minimumLinux;
    if (candidate.major() < release.requiredDriverMajor) continue;
    if (floor && candidate < *floor) continue;
    if (!best || candidate < *best) best = candidate;
  }
  if (best) return best;
  for (const auto& branch : catalog.driverBranches) {
    if (branch.branch < release.requiredDriverMajor) continue;
    if (floor && branch.representative < *floor) continue;
    if (!best || branch.representative < *best) best = branch.representative;
  }
  return best;
}

/// The oldest long-term support branch that still runs the release and has
/// not reached its end of life: the most conservative branch to move a fleet to.
const DriverBranch* currentLongTermBranch(const Release& release, const Catalog& catalog,
                                          std::string_view today) {
  const DriverBranch* chosen = nullptr;
  for (const auto& branch : catalog.driverBranches) {
    if (branch.kind != catalog::BranchKind::LongTermSupport) continue;
    if (branch.branch < release.requiredDriverMajor) continue;
    if (branch.endOfLife && *branch.endOfLife < today) continue;
    if (chosen == nullptr || branch.branch < chosen->branch) chosen = &branch;
  }
  return chosen;
}

void addForwardCompatWarnings(const Release& release, const Catalog& catalog, int branch,
                              std::string_view today, CompatVerdict& verdict) {
  verdict.warnings.push_back(text::entrypointWarning());
  if (release.mustUpgrade(branch)) {
    verdict.warnings.push_back(text::contradictoryNotesWarning(release, branch));
  }
  const DriverBranch* lifecycle = catalog.findBranch(branch);
  if (lifecycle == nullptr || !lifecycle->inForwardCompatMatrix) {
    verdict.warnings.push_back(text::notInMatrixWarning(branch, lifecycle, today));
  } else if (lifecycle->endOfLife) {
    verdict.warnings.push_back(text::endOfLifeWarning(*lifecycle, today));
  }
}

void explainUnsupportedDriver(const Release& release, const Catalog& catalog,
                              const CompatQuery& query, std::string_view gpu,
                              std::string_view today, CompatVerdict& verdict) {
  const DriverVersion& driver = *query.driver;
  const int branch = driver.major();
  verdict.reasons.push_back(text::driverTooOld(release, driver));

  if (const auto* allowance = release.allowanceFor(branch)) {
    if (driver < allowance->minimum) {
      verdict.reasons.push_back(text::belowBranchMinimum(release, driver, *allowance));
    }
  } else if (release.mustUpgrade(branch)) {
    verdict.reasons.push_back(text::branchMustUpgrade(release, branch));
  } else {
    verdict.reasons.push_back(text::branchNotAllowed(release, branch));
  }
  if (verdict.gpuClass != GpuClass::DataCenter) {
    verdict.reasons.push_back(text::notDataCenter(verdict.gpuClass, gpu));
  }
  verdict.upgradeTo = upgradeTarget(release, catalog);
  verdict.reasons.push_back(text::upgradeAdvice(release, text::AdviceVerb::Upgrade,
                                                verdict.upgradeTo,
                                                currentLongTermBranch(release, catalog, today)));
}

}  // namespace

std::string_view toString(VerdictStatus status) noexcept {
  switch (status) {
    case VerdictStatus::Supported: return "supported";
    case VerdictStatus::ForwardCompatible: return "forward-compatible";
    case VerdictStatus::Unsupported: return "unsupported";
  }
  return "unsupported";
}

CompatVerdict evaluateCompat(const Release& release, const Catalog& catalog,
                             const CompatQuery& query) {
  CompatVerdict verdict;
  verdict.gpuClass = classifyGpu(query.gpuName);
  const std::string gpu = text::displayGpuName(query.gpuName);

  // End-of-life checks need a date; a caller's malformed one must not
  // silently pass as "not yet end of life".
  std::string today = query.today;
  if (!isIsoDate(today)) {
    if (!today.empty()) verdict.warnings.push_back(text::badDateWarning(today, todayUtc()));
    today = todayUtc();
  }

  // Rule 1: no image for this CPU.
  if (!release.hasArchitecture(query.arch)) {
    verdict.reasons.push_back(text::architectureMissing(release, query.arch));
    verdict.reasons.push_back(text::releasesForArchitecture(catalog, query.arch));
    return verdict;
  }
  if (!query.driver) {
    verdict.reasons.push_back(text::noDriver(release));
    verdict.upgradeTo = upgradeTarget(release, catalog);
    verdict.reasons.push_back(text::upgradeAdvice(release, text::AdviceVerb::Install,
                                                  verdict.upgradeTo,
                                                  currentLongTermBranch(release, catalog, today)));
    return verdict;
  }

  // Rule 2: the driver is new enough on its own.
  const DriverVersion& driver = *query.driver;
  if (driver.major() >= release.requiredDriverMajor) {
    verdict.status = VerdictStatus::Supported;
    verdict.reasons.push_back(text::driverMeetsRequirement(release, driver));
    return verdict;
  }

  // Rule 3: an older kernel driver that the image's compat libraries bridge.
  const auto* allowance = release.allowanceFor(driver.major());
  if (verdict.gpuClass == GpuClass::DataCenter && allowance != nullptr &&
      driver >= allowance->minimum) {
    verdict.status = VerdictStatus::ForwardCompatible;
    verdict.reasons.push_back(text::driverTooOld(release, driver));
    verdict.reasons.push_back(text::forwardCompatibleBecause(release, *allowance, gpu));
    addForwardCompatWarnings(release, catalog, driver.major(), today, verdict);
    return verdict;
  }

  // Rule 4: say exactly which condition failed and what to install.
  explainUnsupportedDriver(release, catalog, query, gpu, today, verdict);
  return verdict;
}

std::string todayUtc() { return utcNow(kDateUtc); }

}  // namespace tb::compat
