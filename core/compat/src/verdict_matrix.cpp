// The matrix asks evaluateCompat once per release and driver branch, with the
// branch's representative driver, so a cell can never disagree with what the
// single-release check says for the same driver.
#include "tb/compat/verdict_matrix.hpp"

#include <algorithm>

namespace tb::compat {

VerdictMatrix buildVerdictMatrix(const catalog::Catalog& catalog,
                                 const std::string& representativeGpu, catalog::CpuArch arch,
                                 const std::string& today) {
  // The catalog promises branches sorted; a user's extra catalog merged in
  // might not keep that, and the columns must ascend.
  std::vector<const catalog::DriverBranch*> branches;
  for (const auto& branch : catalog.driverBranches) branches.push_back(&branch);
  std::stable_sort(branches.begin(), branches.end(),
                   [](const auto* a, const auto* b) { return a->branch < b->branch; });

  VerdictMatrix matrix;
  for (const auto* branch : branches) matrix.branches.push_back(branch->branch);
  for (const auto& release : catalog.releases) {
    matrix.releaseTags.push_back(release.tag);
    auto& row = matrix.cells.emplace_back();
    row.reserve(branches.size());
    for (const auto* branch : branches) {
      CompatQuery query;
      query.driver = branch->representative;
      query.gpuName = representativeGpu;
      query.arch = arch;
      query.today = today;
      row.push_back(evaluateCompat(release, catalog, query));
    }
  }
  return matrix;
}

std::string representativeGpuName(GpuClass gpuClass) {
  switch (gpuClass) {
    case GpuClass::DataCenter: return "NVIDIA H100 80GB HBM3";
    case GpuClass::Workstation: return "NVIDIA RTX 6000 Ada Generation";
    case GpuClass::Consumer: return "NVIDIA GeForce RTX 4090";
    case GpuClass::Unknown: break;
  }
  // No name classes as Unknown, and the cells then say the GPU is not known.
  return {};
}

}  // namespace tb::compat
