// The matrix is evaluateCompat laid out as releases x branches; these tests
// check the layout and that cells agree with single verdicts.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "fixture_catalog.hpp"
#include "tb/compat/verdict_matrix.hpp"

namespace tb::compat {
namespace {

using catalog::CpuArch;

const std::string kToday = "2026-01-15";

std::size_t column(const VerdictMatrix& matrix, int branch) {
  const auto it = std::find(matrix.branches.begin(), matrix.branches.end(), branch);
  EXPECT_NE(it, matrix.branches.end()) << "no column R" << branch;
  return static_cast<std::size_t>(it - matrix.branches.begin());
}

std::size_t row(const VerdictMatrix& matrix, const std::string& tag) {
  const auto it = std::find(matrix.releaseTags.begin(), matrix.releaseTags.end(), tag);
  EXPECT_NE(it, matrix.releaseTags.end()) << "no row " << tag;
  return static_cast<std::size_t>(it - matrix.releaseTags.begin());
}

TEST(VerdictMatrix, RowsAreReleasesAndColumnsAscendingBranches) {
  catalog::Catalog shuffled = fixture::catalog();
  std::shuffle(shuffled.driverBranches.begin(), shuffled.driverBranches.end(), std::mt19937(42));
  const auto matrix = buildVerdictMatrix(shuffled, representativeGpuName(GpuClass::DataCenter),
                                         CpuArch::Amd64, kToday);
  EXPECT_EQ(matrix.releaseTags, (std::vector<std::string>{"25.04", "25.06", "25.09", "25.10"}));
  ASSERT_EQ(matrix.branches.size(), fixture::catalog().driverBranches.size());
  EXPECT_TRUE(std::is_sorted(matrix.branches.begin(), matrix.branches.end()));
  ASSERT_EQ(matrix.cells.size(), 4U);
  for (const auto& cells : matrix.cells) EXPECT_EQ(cells.size(), matrix.branches.size());
}

TEST(VerdictMatrix, DataCenterCellsFollowTheRules) {
  const auto matrix = buildVerdictMatrix(
      fixture::catalog(), representativeGpuName(GpuClass::DataCenter), CpuArch::Amd64, kToday);
  const auto& r2509 = matrix.cells[row(matrix, "25.09")];
  EXPECT_EQ(r2509[column(matrix, 535)].status, VerdictStatus::ForwardCompatible);
  EXPECT_EQ(r2509[column(matrix, 545)].status, VerdictStatus::ForwardCompatible);
  EXPECT_EQ(r2509[column(matrix, 550)].status, VerdictStatus::Unsupported);
  EXPECT_EQ(r2509[column(matrix, 560)].status, VerdictStatus::Unsupported);
  EXPECT_EQ(r2509[column(matrix, 570)].status, VerdictStatus::Unsupported);
  EXPECT_EQ(r2509[column(matrix, 575)].status, VerdictStatus::Supported);
  EXPECT_EQ(r2509[column(matrix, 580)].status, VerdictStatus::Supported);
  // 25.04 asks only for 570.
  EXPECT_EQ(matrix.cells[row(matrix, "25.04")][column(matrix, 570)].status,
            VerdictStatus::Supported);
}

TEST(VerdictMatrix, CellEqualsTheSingleVerdictForTheRepresentativeDriver) {
  const auto& catalog = fixture::catalog();
  const std::string gpu = representativeGpuName(GpuClass::DataCenter);
  const auto matrix = buildVerdictMatrix(catalog, gpu, CpuArch::Amd64, kToday);
  CompatQuery query;
  query.driver = catalog.findBranch(535)->representative;
  query.gpuName = gpu;
  query.today = kToday;
  const auto single = evaluateCompat(fixture::release("25.10"), catalog, query);
  const auto& cell = matrix.cells[row(matrix, "25.10")][column(matrix, 535)];
  EXPECT_EQ(cell.status, single.status);
  EXPECT_EQ(cell.reasons, single.reasons);
  EXPECT_EQ(cell.warnings, single.warnings);
}

TEST(VerdictMatrix, ConsumerClassHasNoForwardCompatibleCell) {
  const auto matrix = buildVerdictMatrix(
      fixture::catalog(), representativeGpuName(GpuClass::Consumer), CpuArch::Amd64, kToday);
  for (const auto& cells : matrix.cells) {
    for (const auto& cell : cells) {
      EXPECT_NE(cell.status, VerdictStatus::ForwardCompatible);
      EXPECT_EQ(cell.gpuClass, GpuClass::Consumer);
    }
  }
}

TEST(VerdictMatrix, Arm64LeavesOnlyTheArm64ReleaseRunnable) {
  const auto matrix = buildVerdictMatrix(
      fixture::catalog(), representativeGpuName(GpuClass::DataCenter), CpuArch::Arm64, kToday);
  for (std::size_t r = 0; r < matrix.releaseTags.size(); ++r) {
    const bool arm64Release = matrix.releaseTags[r] == "25.10";
    const auto& cells = matrix.cells[r];
    const bool anyRunnable = std::any_of(cells.begin(), cells.end(), [](const auto& cell) {
      return cell.status != VerdictStatus::Unsupported;
    });
    EXPECT_EQ(anyRunnable, arm64Release) << matrix.releaseTags[r];
  }
}

TEST(VerdictMatrix, EmptyCatalogGivesAnEmptyMatrix) {
  const auto matrix = buildVerdictMatrix(catalog::Catalog{}, "", CpuArch::Amd64, kToday);
  EXPECT_TRUE(matrix.releaseTags.empty());
  EXPECT_TRUE(matrix.branches.empty());
  EXPECT_TRUE(matrix.cells.empty());
}

TEST(VerdictMatrix, RepresentativeGpuNamesClassBackToTheirClass) {
  for (const GpuClass gpuClass :
       {GpuClass::DataCenter, GpuClass::Workstation, GpuClass::Consumer, GpuClass::Unknown}) {
    EXPECT_EQ(classifyGpu(representativeGpuName(gpuClass)), gpuClass) << toString(gpuClass);
  }
}

}  // namespace
}  // namespace tb::compat
