// The sentences of the verdict, kept apart from the rules in verdict.cpp so
// that the rules read as rules and the wording can be reviewed in one place.
// Internal to tb::compat: not part of the public headers.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "tb/catalog/catalog.hpp"
#include "tb/compat/gpu_class.hpp"

namespace tb::compat::text {

/// "NVIDIA GeForce RTX 4090" -> "GeForce RTX 4090"; reasons read better without the brand.
[[nodiscard]] std::string displayGpuName(std::string_view name);

[[nodiscard]] std::string architectureMissing(const catalog::Release& release,
                                              catalog::CpuArch arch);
[[nodiscard]] std::string releasesForArchitecture(const catalog::Catalog& catalog,
                                                  catalog::CpuArch arch);
[[nodiscard]] std::string noDriver(const catalog::Release& release);
[[nodiscard]] std::string driverMeetsRequirement(const catalog::Release& release,
                                                 const catalog::DriverVersion& driver);
[[nodiscard]] std::string driverTooOld(const catalog::Release& release,
                                       const catalog::DriverVersion& driver);
[[nodiscard]] std::string forwardCompatibleBecause(const catalog::Release& release,
                                                   const catalog::ForwardCompatAllowance& allowance,
                                                   std::string_view gpu);
[[nodiscard]] std::string belowBranchMinimum(const catalog::Release& release,
                                             const catalog::DriverVersion& driver,
                                             const catalog::ForwardCompatAllowance& allowance);
[[nodiscard]] std::string branchMustUpgrade(const catalog::Release& release, int branch);
[[nodiscard]] std::string branchNotAllowed(const catalog::Release& release, int branch);
[[nodiscard]] std::string notDataCenter(GpuClass gpuClass, std::string_view gpu);

/// Whether the host has a driver to upgrade or needs one installed.
enum class AdviceVerb { Install, Upgrade };

/// What to install: `target` when known, with the long-term branch as the
/// alternative a fleet operator usually prefers.
[[nodiscard]] std::string upgradeAdvice(const catalog::Release& release, AdviceVerb verb,
                                        const std::optional<catalog::DriverVersion>& target,
                                        const catalog::DriverBranch* longTermBranch);

[[nodiscard]] std::string entrypointWarning();
[[nodiscard]] std::string contradictoryNotesWarning(const catalog::Release& release, int branch);
/// `lifecycle` may be null: the catalog does not know the branch at all.
[[nodiscard]] std::string notInMatrixWarning(int branch, const catalog::DriverBranch* lifecycle,
                                             std::string_view today);
/// For a branch in the matrix with a known end of life, passed or coming.
[[nodiscard]] std::string endOfLifeWarning(const catalog::DriverBranch& lifecycle,
                                           std::string_view today);
[[nodiscard]] std::string badDateWarning(std::string_view given, std::string_view used);

}  // namespace tb::compat::text
