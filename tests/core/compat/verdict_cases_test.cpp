// The verdict rules as a table: one row per rule and per boundary of a rule,
// each its own ctest entry (Rules/VerdictCase.Run/<name>). Rows check the
// status, the driver to upgrade to, the number of warnings and words that
// must appear in the reasons and warnings, against the fixture catalog.
#include <gtest/gtest.h>

#include "fixture_catalog.hpp"
#include "tb/compat/verdict.hpp"

namespace tb::compat {
namespace {

using catalog::CpuArch;
using Status = VerdictStatus;

constexpr const char* kH100 = "NVIDIA H100 80GB HBM3";

struct VerdictRow {
  const char* name;
  const char* tag = "25.09";
  const char* driver = "";  ///< empty: no driver on the host
  const char* gpu = kH100;
  CpuArch arch = CpuArch::Amd64;
  const char* today = "2026-01-15";
  Status status = Status::Unsupported;
  const char* upgradeTo = "";  ///< empty: no upgrade expected
  std::size_t warnings = 0;
  std::vector<std::string> reasonsMention = {};
  std::vector<std::string> warningsMention = {};
};

// gtest prints a failing parameter with this instead of its raw bytes.
void PrintTo(const VerdictRow& row, std::ostream* out) { *out << row.name; }

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += "\n  " + line;
  return out;
}

class VerdictCase : public ::testing::TestWithParam<VerdictRow> {};

TEST_P(VerdictCase, Run) {
  const VerdictRow& c = GetParam();
  CompatQuery query;
  if (*c.driver != '\0') query.driver = fixture::driver(c.driver);
  query.gpuName = c.gpu;
  query.arch = c.arch;
  query.today = c.today;

  const CompatVerdict verdict = evaluateCompat(fixture::release(c.tag), fixture::catalog(), query);
  const std::string context =
      "reasons:" + joined(verdict.reasons) + "\nwarnings:" + joined(verdict.warnings);

  EXPECT_EQ(toString(verdict.status), toString(c.status)) << context;
  EXPECT_FALSE(verdict.reasons.empty()) << context;
  if (*c.upgradeTo == '\0') {
    EXPECT_FALSE(verdict.upgradeTo.has_value()) << context;
  } else {
    ASSERT_TRUE(verdict.upgradeTo.has_value()) << context;
    EXPECT_EQ(verdict.upgradeTo->text(), c.upgradeTo);
  }
  EXPECT_EQ(verdict.warnings.size(), c.warnings) << context;
  const std::string reasons = joined(verdict.reasons);
  for (const auto& word : c.reasonsMention) {
    EXPECT_NE(reasons.find(word), std::string::npos) << "missing '" << word << "'\n" << context;
  }
  const std::string warnings = joined(verdict.warnings);
  for (const auto& word : c.warningsMention) {
    EXPECT_NE(warnings.find(word), std::string::npos) << "missing '" << word << "'\n" << context;
  }
}

const VerdictRow kRows[] = {
    // Rule 2: the driver alone is enough, whatever the GPU.
    {.name = "r580_h100_on_2509_is_supported",
     .driver = "580.65.06",
     .status = Status::Supported,
     .reasonsMention = {"580.65.06", "575 or newer"}},
    {.name = "exactly_575_0_on_2509_is_supported",
     .driver = "575.0",
     .gpu = "NVIDIA GeForce RTX 4090",
     .status = Status::Supported},
    {.name = "r570_26_on_2504_is_supported",
     .tag = "25.04",
     .driver = "570.26",
     .status = Status::Supported,
     .reasonsMention = {"570 or newer", "CUDA 12.8.0"}},
    {.name = "geforce_with_new_driver_is_supported",
     .driver = "590.44.01",
     .gpu = "NVIDIA GeForce RTX 5090",
     .status = Status::Supported},
    {.name = "unknown_gpu_with_new_driver_is_supported",
     .driver = "580.95.05",
     .gpu = "",
     .status = Status::Supported},
    // One below the required major is not rule 2, and R574 is no allowed branch.
    {.name = "r574_99_h100_on_2509_is_unsupported",
     .driver = "574.99",
     .upgradeTo = "575.51.03",
     .reasonsMention = {"does not allow R574"}},
    {.name = "r570_124_h100_on_2509_is_not_an_allowed_branch",
     .driver = "570.124.06",
     .upgradeTo = "575.51.03",
     .reasonsMention = {"does not allow R570", "R535 from 535.86"}},
    // Rule 3 at the R535 boundary: 535.86 is the first allowed driver.
    {.name = "r535_86_h100_on_2509_is_forward_compatible",
     .driver = "535.86",
     .status = Status::ForwardCompatible,
     .warnings = 2,
     .reasonsMention = {"allows R535 drivers from 535.86"},
     .warningsMention = {"ENTRYPOINT"}},
    {.name = "r535_85_99_h100_on_2509_is_below_the_branch_minimum",
     .driver = "535.85.99",
     .upgradeTo = "575.51.03",
     .reasonsMention = {"535.85.99 is below 535.86"}},
    {.name = "r535_85_05_h100_on_2509_is_below_the_branch_minimum",
     .driver = "535.85.05",
     .upgradeTo = "575.51.03",
     .reasonsMention = {"535.85.05 is below 535.86, the first R535 driver that 25.09 allows"}},
    {.name = "r535_86_10_h100_on_2509_is_forward_compatible",
     .driver = "535.86.10",
     .status = Status::ForwardCompatible,
     .warnings = 2},
    {.name = "r535_104_05_h100_on_2509_is_forward_compatible",
     .driver = "535.104.05",
     .status = Status::ForwardCompatible,
     .warnings = 2,
     .reasonsMention = {"H100 80GB HBM3 is a data-center GPU"},
     .warningsMention = {"`command:`", "R535 reaches end of life in 2026-06"}},
    {.name = "r535_104_05_h100_on_2504_is_forward_compatible",
     .tag = "25.04",
     .driver = "535.104.05",
     .status = Status::ForwardCompatible,
     .warnings = 2},
    // R535's end of life depends on the date asked about.
    {.name = "r535_before_its_end_of_life_month_warns_it_is_coming",
     .driver = "535.104.05",
     .today = "2026-05-31",
     .status = Status::ForwardCompatible,
     .warnings = 2,
     .warningsMention = {"R535 reaches end of life in 2026-06"}},
    {.name = "r535_on_the_first_day_of_its_end_of_life_month_has_reached_it",
     .driver = "535.104.05",
     .today = "2026-06-01",
     .status = Status::ForwardCompatible,
     .warnings = 2,
     .warningsMention = {"R535 reached end of life in 2026-06"}},
    {.name = "r535_after_its_end_of_life_has_reached_it",
     .driver = "535.104.05",
     .today = "2026-07-01",
     .status = Status::ForwardCompatible,
     .warnings = 2,
     .warningsMention = {"R535 reached end of life in 2026-06"}},
    // R545: allowed and must-upgrade in the same notes; the allowance wins.
    {.name = "r545_23_08_h100_on_2509_is_forward_compatible_with_a_contradiction_warning",
     .driver = "545.23.08",
     .status = Status::ForwardCompatible,
     .warnings = 3,
     .warningsMention = {"also list R545 among the branches that must upgrade",
                         "R545 is not in NVIDIA's current forward-compatibility matrix"}},
    {.name = "r545_below_its_minimum_is_unsupported_despite_the_allowance",
     .driver = "545.22.99",
     .upgradeTo = "575.51.03",
     .reasonsMention = {"545.22.99 is below 545.23"}},
    // R560: must upgrade; R550: neither allowed nor listed.
    {.name = "r560_h100_on_2509_must_upgrade",
     .driver = "560.35.05",
     .upgradeTo = "575.51.03",
     .reasonsMention = {"list R560 among the branches that must upgrade"}},
    {.name = "r560_h100_on_2504_must_upgrade_to_570_26",
     .tag = "25.04",
     .driver = "560.35.05",
     .upgradeTo = "570.26",
     .reasonsMention = {"570 or newer"}},
    {.name = "r550_h100_on_2509_is_in_neither_list",
     .driver = "550.54.15",
     .upgradeTo = "575.51.03",
     .reasonsMention = {"does not allow R550"}},
    // R470 and R525: allowed, but gone from NVIDIA's matrix.
    {.name = "r470_57_02_tesla_t4_on_2509_is_forward_compatible_with_an_eol_warning",
     .driver = "470.57.02",
     .gpu = "Tesla T4",
     .status = Status::ForwardCompatible,
     .warnings = 2,
     .warningsMention = {"R470 is not in NVIDIA's current", "(since 2024-09)"}},
    {.name = "r470_42_01_h100_on_2509_is_below_the_branch_minimum",
     .driver = "470.42.01",
     .upgradeTo = "575.51.03",
     .reasonsMention = {"470.42.01 is below 470.57"}},
    {.name = "r525_85_12_a100_on_2509_is_forward_compatible",
     .driver = "525.85.12",
     .gpu = "NVIDIA A100-SXM4-80GB",
     .status = Status::ForwardCompatible,
     .warnings = 2},
    // The GPU must be data-center for rule 3.
    {.name = "r535_104_05_geforce_4090_on_2509_is_a_consumer_gpu",
     .driver = "535.104.05",
     .gpu = "NVIDIA GeForce RTX 4090",
     .upgradeTo = "575.51.03",
     .reasonsMention = {"GeForce RTX 4090 is a consumer GPU: forward compatibility needs a "
                        "data-center GPU."}},
    {.name = "r535_104_05_titan_rtx_on_2509_is_a_consumer_gpu",
     .driver = "535.104.05",
     .gpu = "NVIDIA TITAN RTX",
     .upgradeTo = "575.51.03",
     .reasonsMention = {"consumer GPU"}},
    {.name = "r535_104_05_rtx_a6000_on_2509_is_a_workstation_gpu",
     .driver = "535.104.05",
     .gpu = "NVIDIA RTX A6000",
     .upgradeTo = "575.51.03",
     .reasonsMention = {"RTX A6000 is a workstation GPU"}},
    {.name = "r535_104_05_rtx_6000_ada_on_2509_is_a_workstation_gpu",
     .driver = "535.104.05",
     .gpu = "NVIDIA RTX 6000 Ada Generation",
     .upgradeTo = "575.51.03",
     .reasonsMention = {"workstation GPU"}},
    {.name = "r535_104_05_unknown_gpu_on_2509_cannot_assume_forward_compatibility",
     .driver = "535.104.05",
     .gpu = "Matrox G200eR2",
     .upgradeTo = "575.51.03",
     .reasonsMention = {"Matrox G200eR2 is not recognised as a data-center GPU"}},
    {.name = "r535_104_05_empty_gpu_name_on_2509_cannot_assume_forward_compatibility",
     .driver = "535.104.05",
     .gpu = "",
     .upgradeTo = "575.51.03",
     .reasonsMention = {"The GPU is not known"}},
    {.name = "r560_geforce_on_2509_names_both_the_branch_and_the_gpu",
     .driver = "560.94",
     .gpu = "NVIDIA GeForce RTX 3090",
     .upgradeTo = "575.51.03",
     .reasonsMention = {"must upgrade", "consumer GPU"}},
    // Rule 1: the architecture comes before everything, and gives no upgrade.
    {.name = "arm64_on_2509_is_unsupported_even_with_a_new_driver",
     .driver = "580.65.06",
     .gpu = "NVIDIA GH200 480GB",
     .arch = CpuArch::Arm64,
     .reasonsMention = {"25.09 is published for amd64 only; this host is arm64.",
                        "Releases published for arm64: 25.10."}},
    {.name = "arm64_without_a_driver_on_2509_is_an_architecture_problem_first",
     .arch = CpuArch::Arm64,
     .reasonsMention = {"published for amd64 only"}},
    {.name = "arm64_on_2510_with_r580_is_supported",
     .tag = "25.10",
     .driver = "580.65.06",
     .gpu = "NVIDIA GH200 480GB",
     .arch = CpuArch::Arm64,
     .status = Status::Supported},
    {.name = "arm64_on_2510_with_a_driver_newer_than_required_is_supported",
     .tag = "25.10",
     .driver = "595.45.04",
     .gpu = "NVIDIA L20",
     .arch = CpuArch::Arm64,
     .status = Status::Supported},
    {.name = "arm64_gh200_r535_on_2510_is_forward_compatible",
     .tag = "25.10",
     .driver = "535.161.08",
     .gpu = "NVIDIA GH200 480GB",
     .arch = CpuArch::Arm64,
     .status = Status::ForwardCompatible,
     .warnings = 2},
    {.name = "h20_r535_on_2510_is_forward_compatible",
     .tag = "25.10",
     .driver = "535.230.02",
     .gpu = "NVIDIA H20",
     .status = Status::ForwardCompatible,
     .warnings = 2},
    // No driver at all.
    {.name = "no_driver_on_2509_is_unsupported_and_names_a_driver_to_install",
     .upgradeTo = "575.51.03",
     .reasonsMention = {"no NVIDIA driver on this machine", "Install driver 575.51.03"}},
    // upgradeTo meets the release's CUDA minimum too: 12.9.1 needs 575.57.08.
    {.name = "upgrade_for_cuda_12_9_1_release_is_575_57_08",
     .tag = "25.06",
     .driver = "560.35.05",
     .upgradeTo = "575.57.08"},
    {.name = "upgrade_advice_mentions_the_current_long_term_branch",
     .driver = "550.54.15",
     .upgradeTo = "575.51.03",
     .reasonsMention = {"or to R580, the current long-term support branch (supported until "
                        "2028-06)."}},
};

INSTANTIATE_TEST_SUITE_P(Rules, VerdictCase, ::testing::ValuesIn(kRows),
                         [](const ::testing::TestParamInfo<VerdictRow>& entry) {
                           return std::string(entry.param.name);
                         });

}  // namespace
}  // namespace tb::compat
