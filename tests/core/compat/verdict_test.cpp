// The verdict beyond the rule table: exact sentences users see, the dates it
// depends on, where upgradeTo comes from when NVIDIA's table is incomplete,
// and that the sentences are whole sentences.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>

#include "fixture_catalog.hpp"
#include "tb/compat/verdict.hpp"

namespace tb::compat {
namespace {

using catalog::CpuArch;

CompatQuery query(std::string_view driver, std::string gpu = "NVIDIA H100 80GB HBM3",
                  std::string today = "2026-01-15") {
  CompatQuery q;
  if (!driver.empty()) q.driver = fixture::driver(driver);
  q.gpuName = std::move(gpu);
  q.today = std::move(today);
  return q;
}

CompatVerdict evaluate(std::string_view tag, const CompatQuery& q) {
  return evaluateCompat(fixture::release(tag), fixture::catalog(), q);
}

bool mentions(const std::vector<std::string>& lines, std::string_view word) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& line) { return line.find(word) != std::string::npos; });
}

TEST(Verdict, StatusNamesAreTheJsonValues) {
  EXPECT_EQ(toString(VerdictStatus::Supported), "supported");
  EXPECT_EQ(toString(VerdictStatus::ForwardCompatible), "forward-compatible");
  EXPECT_EQ(toString(VerdictStatus::Unsupported), "unsupported");
}

TEST(Verdict, ForwardCompatibleVerdictWarnsAboutTheEntrypointFirst) {
  const auto verdict = evaluate("25.09", query("535.104.05"));
  ASSERT_EQ(verdict.status, VerdictStatus::ForwardCompatible);
  ASSERT_FALSE(verdict.warnings.empty());
  EXPECT_NE(verdict.warnings.front().find("ENTRYPOINT"), std::string::npos);
  EXPECT_NE(verdict.warnings.front().find("`command:`"), std::string::npos);
  EXPECT_FALSE(verdict.upgradeTo.has_value());
  EXPECT_EQ(verdict.gpuClass, GpuClass::DataCenter);
}

TEST(Verdict, BelowBranchMinimumReadsAsOneSentence) {
  const auto verdict = evaluate("25.09", query("535.85.05"));
  EXPECT_TRUE(mentions(verdict.reasons,
                       "535.85.05 is below 535.86, the first R535 driver that 25.09 allows in "
                       "forward-compatibility mode."));
  EXPECT_EQ(verdict.reasons.front(),
            "Driver 535.85.05 is older than the release needs: 25.09 requires driver 575 or "
            "newer (it is built on CUDA 12.8.0).");
}

TEST(Verdict, SupportedVerdictHasNoWarningsAndNoUpgrade) {
  const auto verdict = evaluate("25.10", query("580.95.05"));
  EXPECT_EQ(verdict.status, VerdictStatus::Supported);
  EXPECT_TRUE(verdict.warnings.empty());
  EXPECT_FALSE(verdict.upgradeTo.has_value());
}

TEST(Verdict, EveryReasonAndWarningIsACompleteSentence) {
  const char* drivers[] = {"",          "470.57.02", "535.85.05", "535.104.05", "545.23.08",
                           "550.54.15", "560.35.05", "575.0",     "580.65.06"};
  const char* gpus[] = {"NVIDIA H100 80GB HBM3", "NVIDIA GeForce RTX 4090", "NVIDIA RTX A6000",
                        "Some Card", ""};
  for (const auto& release : fixture::catalog().releases) {
    for (const CpuArch arch : {CpuArch::Amd64, CpuArch::Arm64}) {
      for (const char* driver : drivers) {
        for (const char* gpu : gpus) {
          auto q = query(driver, gpu);
          q.arch = arch;
          const auto verdict = evaluateCompat(release, fixture::catalog(), q);
          ASSERT_FALSE(verdict.reasons.empty());
          std::vector<std::string> all = verdict.reasons;
          all.insert(all.end(), verdict.warnings.begin(), verdict.warnings.end());
          for (const auto& line : all) {
            ASSERT_FALSE(line.empty());
            EXPECT_TRUE(std::isupper(static_cast<unsigned char>(line.front())) != 0 ||
                        std::isdigit(static_cast<unsigned char>(line.front())) != 0)
                << line;
            EXPECT_EQ(line.back(), '.') << line;
          }
        }
      }
    }
  }
}

TEST(Verdict, LongTermBranchIsNamedAsTheUpgradeWhenItIsTheTarget) {
  // A release that requires 580 upgrades straight into the LTS branch.
  catalog::Release release = fixture::release("25.09");
  release.requiredDriverMajor = 580;
  release.cudaVersion = "13.0.0";
  const auto verdict = evaluateCompat(release, fixture::catalog(), query("570.124.06"));
  ASSERT_TRUE(verdict.upgradeTo.has_value());
  EXPECT_EQ(verdict.upgradeTo->text(), "580.65.06");
  EXPECT_EQ(verdict.reasons.back(),
            "Upgrade the driver to 580.65.06 or newer; R580 is the current long-term support "
            "branch (supported until 2028-06).");
}

TEST(Verdict, NoDriverAdvisesWhatToInstall) {
  const auto verdict = evaluate("25.09", query(""));
  EXPECT_EQ(verdict.status, VerdictStatus::Unsupported);
  EXPECT_EQ(verdict.reasons.front(),
            "There is no NVIDIA driver on this machine; 25.09 requires driver 575 or newer (it "
            "is built on CUDA 12.8.0).");
  EXPECT_EQ(verdict.reasons.back(),
            "Install driver 575.51.03 or newer, or a driver of R580, the current long-term "
            "support branch (supported until 2028-06).");
}

TEST(Verdict, LongTermBranchPastItsEndOfLifeIsNotRecommended) {
  const auto verdict = evaluate("25.09", query("550.54.15", "NVIDIA H100 80GB HBM3", "2028-07-01"));
  EXPECT_FALSE(mentions(verdict.reasons, "long-term"));
  EXPECT_EQ(verdict.reasons.back(), "Upgrade the driver to 575.51.03 or newer.");
}

TEST(Verdict, UpgradeFallsBackToABranchDriverWhenTheToolkitTableHasNone) {
  catalog::Catalog catalog = fixture::catalog();
  catalog.toolkitDrivers.clear();
  const auto verdict = evaluateCompat(fixture::release("25.09"), catalog, query("550.54.15"));
  ASSERT_TRUE(verdict.upgradeTo.has_value());
  EXPECT_EQ(verdict.upgradeTo->text(), "575.64.05");  // the R575 representative
}

TEST(Verdict, UpgradeNamesTheBranchWhenNoDriverIsKnownAtAll) {
  catalog::Catalog catalog = fixture::catalog();
  catalog.toolkitDrivers.clear();
  catalog.driverBranches.clear();
  const auto verdict = evaluateCompat(fixture::release("25.09"), catalog, query("550.54.15"));
  EXPECT_FALSE(verdict.upgradeTo.has_value());
  EXPECT_EQ(verdict.reasons.back(), "Upgrade the driver to branch R575 or newer.");
}

TEST(Verdict, BranchUnknownToTheCatalogIsTreatedAsOutsideTheMatrix) {
  catalog::Catalog catalog = fixture::catalog();
  std::erase_if(catalog.driverBranches, [](const auto& b) { return b.branch == 535; });
  const auto verdict = evaluateCompat(fixture::release("25.09"), catalog, query("535.104.05"));
  EXPECT_EQ(verdict.status, VerdictStatus::ForwardCompatible);
  EXPECT_TRUE(mentions(verdict.warnings, "R535 is not in NVIDIA's current forward-compatibility"));
}

TEST(Verdict, ReleaseWithoutAllowancesSaysSo) {
  catalog::Release release = fixture::release("25.09");
  release.forwardCompat.clear();
  const auto verdict = evaluateCompat(release, fixture::catalog(), query("535.104.05"));
  EXPECT_EQ(verdict.status, VerdictStatus::Unsupported);
  EXPECT_TRUE(mentions(verdict.reasons, "25.09 allows no older driver branch"));
}

TEST(Verdict, MalformedDateWarnsAndFallsBackToToday) {
  const auto verdict = evaluate("25.09", query("535.104.05", "NVIDIA H100 80GB HBM3", "June 2026"));
  EXPECT_EQ(verdict.status, VerdictStatus::ForwardCompatible);
  EXPECT_TRUE(mentions(verdict.warnings, "The date 'June 2026' is not of the form YYYY-MM-DD"));
  EXPECT_TRUE(mentions(verdict.warnings, todayUtc()));
}

TEST(Verdict, EmptyDateMeansTodayWithoutAWarning) {
  const auto verdict = evaluate("25.09", query("535.104.05", "NVIDIA H100 80GB HBM3", ""));
  EXPECT_EQ(verdict.status, VerdictStatus::ForwardCompatible);
  EXPECT_FALSE(mentions(verdict.warnings, "YYYY-MM-DD"));
  const bool reached = "2026-06" < todayUtc();
  EXPECT_TRUE(mentions(verdict.warnings,
                       reached ? "R535 reached end of life" : "R535 reaches end of life"));
}

TEST(Verdict, ReleasePublishedForNoArchitectureSaysSo) {
  catalog::Release release = fixture::release("25.09");
  release.architectures.clear();
  const auto verdict = evaluateCompat(release, fixture::catalog(), query("580.65.06"));
  EXPECT_EQ(verdict.reasons.front(),
            "25.09 is published for no CPU architecture; this host is "
            "amd64.");
}

TEST(Verdict, TodayUtcIsAnIsoDate) {
  const std::string today = todayUtc();
  ASSERT_EQ(today.size(), 10U);
  EXPECT_EQ(today[4], '-');
  EXPECT_EQ(today[7], '-');
  EXPECT_GE(today, "2025-01-01");
}

}  // namespace
}  // namespace tb::compat
