// Releases x driver branches, each cell the verdict for a representative
// driver of the branch: a fleet's view of which releases it can run.
#pragma once

#include <string>
#include <vector>

#include "tb/catalog/catalog.hpp"
#include "tb/compat/verdict.hpp"

namespace tb::compat {

struct VerdictMatrix {
  std::vector<std::string> releaseTags;  ///< rows
  std::vector<int> branches;             ///< columns
  /// cells[row][column]
  std::vector<std::vector<CompatVerdict>> cells;
};

/// Builds the matrix for one GPU class. `representativeGpu` is the name used
/// in the query (e.g. "NVIDIA H100 80GB HBM3" for data-center), so reasons read
/// naturally.
[[nodiscard]] VerdictMatrix buildVerdictMatrix(const catalog::Catalog& catalog,
                                               const std::string& representativeGpu,
                                               catalog::CpuArch arch, const std::string& today);

/// A typical GPU name for a class, for the matrix's queries.
[[nodiscard]] std::string representativeGpuName(GpuClass gpuClass);

}  // namespace tb::compat
