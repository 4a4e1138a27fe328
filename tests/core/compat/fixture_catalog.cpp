// Built by hand on purpose: see fixture_catalog.hpp.
#include "fixture_catalog.hpp"

#include <cstdio>
#include <cstdlib>

namespace tb::compat::fixture {
namespace {

using catalog::BranchKind;
using catalog::CpuArch;

catalog::Release makeRelease(std::string tag, std::string cuda, int requiredMajor,
                             std::vector<CpuArch> architectures) {
  catalog::Release release;
  release.tag = tag;
  release.image =
      "egslingjun-registry.cn-wulanchabu.cr.aliyuncs.com/egslingjun/"
      "training-nv-pytorch:" +
      tag + "-serverless";
  release.cudaVersion = std::move(cuda);
  release.requiredDriverMajor = requiredMajor;
  release.architectures = std::move(architectures);
  // The paragraph every release page copies from NGC, contradiction included.
  release.forwardCompat = {{470, driver("470.57")},
                           {525, driver("525.85")},
                           {535, driver("535.86")},
                           {545, driver("545.23")}};
  release.mustUpgradeBranches = {418, 440, 450, 460, 510, 520, 530, 545, 555, 560};
  return release;
}

catalog::DriverBranch makeBranch(int number, BranchKind kind, std::optional<std::string> eol,
                                 bool inMatrix, std::string_view representative) {
  catalog::DriverBranch branch;
  branch.branch = number;
  branch.kind = kind;
  branch.endOfLife = std::move(eol);
  branch.inForwardCompatMatrix = inMatrix;
  branch.representative = driver(representative);
  return branch;
}

catalog::Catalog build() {
  catalog::Catalog built;
  built.catalogVersion = "test";
  built.releases = {makeRelease("25.04", "12.8.0", 570, {CpuArch::Amd64}),
                    makeRelease("25.06", "12.9.1", 575, {CpuArch::Amd64}),
                    makeRelease("25.09", "12.8.0", 575, {CpuArch::Amd64}),
                    makeRelease("25.10", "12.8", 575, {CpuArch::Amd64, CpuArch::Arm64})};
  const struct {
    const char* label;
    const char* version;
    const char* minimum;
  } rows[] = {{"12.2 GA", "12.2.0", "535.54.03"},  {"12.2 U1", "12.2.1", "535.86.09"},
              {"12.2 U2", "12.2.2", "535.104.05"}, {"12.4 GA", "12.4.0", "550.54.14"},
              {"12.4 U1", "12.4.1", "550.54.15"},  {"12.6 GA", "12.6.0", "560.28.03"},
              {"12.6 U3", "12.6.3", "560.35.05"},  {"12.8 GA", "12.8.0", "570.26"},
              {"12.8 U1", "12.8.1", "570.124.06"}, {"12.9 GA", "12.9.0", "575.51.03"},
              {"12.9 U1", "12.9.1", "575.57.08"},  {"13.0 GA", "13.0.0", "580.65.06"},
              {"13.0 U1", "13.0.1", "580.82.07"},  {"13.0 U2", "13.0.2", "580.95.05"},
              {"13.1 GA", "13.1.0", "590.44.01"}};
  for (const auto& row : rows) {
    built.toolkitDrivers.push_back({row.label, row.version, driver(row.minimum)});
  }
  built.driverBranches = {
      makeBranch(470, BranchKind::Legacy, "2024-09", false, "470.256.02"),
      makeBranch(525, BranchKind::Production, "2023-11", false, "525.147.05"),
      makeBranch(535, BranchKind::LongTermSupport, "2026-06", true, "535.261.03"),
      makeBranch(545, BranchKind::NewFeature, std::nullopt, false, "545.29.06"),
      makeBranch(550, BranchKind::Production, "2025-04", false, "550.163.01"),
      makeBranch(560, BranchKind::NewFeature, std::nullopt, false, "560.35.05"),
      makeBranch(570, BranchKind::Production, "2026-02", true, "570.172.08"),
      makeBranch(575, BranchKind::NewFeature, std::nullopt, false, "575.64.05"),
      makeBranch(580, BranchKind::LongTermSupport, "2028-06", true, "580.95.05"),
      makeBranch(590, BranchKind::NewFeature, std::nullopt, true, "590.44.01"),
      makeBranch(595, BranchKind::Production, "2027-03", true, "595.45.04")};
  return built;
}

}  // namespace

catalog::DriverVersion driver(std::string_view text) {
  auto parsed = catalog::DriverVersion::parse(text);
  if (!parsed) {
    std::fprintf(stderr, "fixture driver '%.*s' does not parse\n", static_cast<int>(text.size()),
                 text.data());
    std::abort();
  }
  return *parsed;
}

const catalog::Catalog& catalog() {
  static const catalog::Catalog built = build();
  return built;
}

const catalog::Release& release(std::string_view tag) {
  for (const auto& candidate : catalog().releases) {
    if (candidate.tag == tag) return candidate;
  }
  std::fprintf(stderr, "fixture has no release '%.*s'\n", static_cast<int>(tag.size()), tag.data());
  std::abort();
}

}  // namespace tb::compat::fixture
