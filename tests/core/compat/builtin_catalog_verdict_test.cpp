// A few verdicts against the catalog that ships (resources/catalog), so the
// rules and the real data are known to fit together: the rule tests use a
// catalog built in code and would not notice a data file the rules misread.
#include <gtest/gtest.h>

#include <algorithm>

#include "tb/catalog/catalog_loader.hpp"
#include "tb/compat/verdict_matrix.hpp"

namespace tb::compat {
namespace {

using catalog::CpuArch;

CompatVerdict evaluateBuiltin(std::string_view tag, std::string_view driver,
                              std::string gpu = "NVIDIA H100 80GB HBM3",
                              CpuArch arch = CpuArch::Amd64) {
  const auto& builtin = catalog::builtinCatalog();
  const auto* release = builtin.findRelease(tag);
  EXPECT_NE(release, nullptr) << "the shipped catalog has no " << tag;
  if (release == nullptr) return {};
  CompatQuery query;
  if (!driver.empty()) query.driver = catalog::DriverVersion::parse(driver).value();
  query.gpuName = std::move(gpu);
  query.arch = arch;
  query.today = "2026-01-15";
  return evaluateCompat(*release, builtin, query);
}

bool anyLineMentions(const std::vector<std::string>& lines, std::string_view word) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& line) { return line.find(word) != std::string::npos; });
}

TEST(BuiltinCatalogVerdict, R535OnH100Runs2509InForwardCompatibility) {
  const auto verdict = evaluateBuiltin("25.09", "535.104.05");
  EXPECT_EQ(verdict.status, VerdictStatus::ForwardCompatible);
  EXPECT_TRUE(anyLineMentions(verdict.warnings, "ENTRYPOINT"));
  EXPECT_TRUE(anyLineMentions(verdict.warnings, "R535 reaches end of life in 2026-06"));
}

TEST(BuiltinCatalogVerdict, R545On2509CarriesTheContradictionWarning) {
  const auto verdict = evaluateBuiltin("25.09", "545.23.08");
  EXPECT_EQ(verdict.status, VerdictStatus::ForwardCompatible);
  EXPECT_TRUE(
      anyLineMentions(verdict.warnings, "also list R545 among the branches that must upgrade"));
}

TEST(BuiltinCatalogVerdict, BelowR535MinimumOn2509UpgradesTo575_51_03) {
  const auto verdict = evaluateBuiltin("25.09", "535.85.05");
  EXPECT_EQ(verdict.status, VerdictStatus::Unsupported);
  ASSERT_TRUE(verdict.upgradeTo.has_value());
  EXPECT_EQ(verdict.upgradeTo->text(), "575.51.03");
  EXPECT_TRUE(anyLineMentions(verdict.reasons, "R580, the current long-term support branch"));
}

TEST(BuiltinCatalogVerdict, R560On2509MustUpgrade) {
  const auto verdict = evaluateBuiltin("25.09", "560.35.05");
  EXPECT_EQ(verdict.status, VerdictStatus::Unsupported);
  EXPECT_TRUE(anyLineMentions(verdict.reasons, "must upgrade"));
}

TEST(BuiltinCatalogVerdict, Arm64IsRefusedOn2509AndSupportedOn2510) {
  EXPECT_EQ(evaluateBuiltin("25.09", "580.95.05", "NVIDIA GH200 480GB", CpuArch::Arm64).status,
            VerdictStatus::Unsupported);
  EXPECT_EQ(evaluateBuiltin("25.10", "580.95.05", "NVIDIA GH200 480GB", CpuArch::Arm64).status,
            VerdictStatus::Supported);
}

TEST(BuiltinCatalogVerdict, ConsumerGpuOnAnAllowedBranchIsRefused) {
  const auto verdict = evaluateBuiltin("25.10", "535.104.05", "NVIDIA GeForce RTX 4090");
  EXPECT_EQ(verdict.status, VerdictStatus::Unsupported);
  EXPECT_TRUE(anyLineMentions(verdict.reasons, "consumer GPU"));
}

TEST(BuiltinCatalogVerdict, MatrixCoversEveryReleaseAndBranch) {
  const auto& builtin = catalog::builtinCatalog();
  const auto matrix = buildVerdictMatrix(builtin, representativeGpuName(GpuClass::DataCenter),
                                         CpuArch::Amd64, "2026-01-15");
  ASSERT_EQ(matrix.releaseTags.size(), builtin.releases.size());
  ASSERT_EQ(matrix.branches.size(), builtin.driverBranches.size());
  std::size_t forwardCompatible = 0;
  for (const auto& row : matrix.cells) {
    ASSERT_EQ(row.size(), matrix.branches.size());
    for (const auto& cell : row) {
      EXPECT_FALSE(cell.reasons.empty());
      forwardCompatible += cell.status == VerdictStatus::ForwardCompatible ? 1U : 0U;
    }
  }
  EXPECT_GT(forwardCompatible, 0U) << "no release allows any branch on a data-center GPU";
}

}  // namespace
}  // namespace tb::compat
