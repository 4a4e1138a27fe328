// Lookups on the plain catalog structs. A catalog holds a handful of releases
// and a few dozen table rows, so linear searches keep the structs plain
// (no index to keep in step when a catalog is merged or edited).
#include "tb/catalog/catalog.hpp"

#include <algorithm>

#include "tb/common/text.hpp"

namespace tb::catalog {

std::string_view toString(CpuArch arch) noexcept {
  switch (arch) {
    case CpuArch::Amd64: return "amd64";
    case CpuArch::Arm64: return "arm64";
  }
  return "unknown";
}

std::optional<CpuArch> parseCpuArch(std::string_view text) {
  // uname(2) says x86_64/aarch64, OCI platforms and Debian say amd64/arm64.
  const std::string name = toLower(trim(text));
  if (name == "amd64" || name == "x86_64") return CpuArch::Amd64;
  if (name == "arm64" || name == "aarch64") return CpuArch::Arm64;
  return std::nullopt;
}

std::string_view toString(BranchKind kind) noexcept {
  switch (kind) {
    case BranchKind::LongTermSupport: return "long-term-support";
    case BranchKind::Production: return "production";
    case BranchKind::NewFeature: return "new-feature";
    case BranchKind::Legacy: return "legacy";
  }
  return "unknown";
}

bool Release::hasArchitecture(CpuArch arch) const {
  return std::find(architectures.begin(), architectures.end(), arch) != architectures.end();
}

std::optional<std::string> Release::componentVersion(std::string_view name) const {
  for (const auto& component : components) {
    if (component.name == name) return component.version;
  }
  return std::nullopt;
}

std::optional<std::string> Release::baseImageReference() const {
  // NGC publishes each monthly PyTorch release as nvcr.io/nvidia/pytorch:YY.MM-py3.
  constexpr std::string_view prefix = "NGC PyTorch ";
  if (!baseImage.starts_with(prefix)) return std::nullopt;
  const std::string_view version = std::string_view(baseImage).substr(prefix.size());
  const bool yearMonth = version.size() == 5 && version[2] == '.' &&
                         std::all_of(version.begin(), version.end(),
                                     [](char c) { return c == '.' || (c >= '0' && c <= '9'); });
  if (!yearMonth) return std::nullopt;
  return "nvcr.io/nvidia/pytorch:" + std::string(version) + "-py3";
}

const ForwardCompatAllowance* Release::allowanceFor(int branch) const {
  for (const auto& allowance : forwardCompat) {
    if (allowance.branch == branch) return &allowance;
  }
  return nullptr;
}

bool Release::mustUpgrade(int branch) const {
  return std::find(mustUpgradeBranches.begin(), mustUpgradeBranches.end(), branch) !=
         mustUpgradeBranches.end();
}

const Release* Catalog::findRelease(std::string_view tag) const {
  const std::string_view wanted = trim(tag);
  for (const auto& release : releases) {
    if (release.tag == wanted) return &release;
  }
  return nullptr;
}

const DriverBranch* Catalog::findBranch(int branch) const {
  for (const auto& entry : driverBranches) {
    if (entry.branch == branch) return &entry;
  }
  return nullptr;
}

std::vector<std::string> Catalog::tags() const {
  std::vector<std::string> result;
  result.reserve(releases.size());
  for (const auto& release : releases) result.push_back(release.tag);
  return result;
}

}  // namespace tb::catalog
