// GPU classing on names as nvidia-smi prints them, including the traps:
// A10 vs A100, RTX A6000 (workstation, not a data-center "A6000"), the RTX
// PRO 6000 Server Edition (data-center) vs its Workstation siblings.
#include <gtest/gtest.h>

#include <set>

#include "tb/compat/gpu_class.hpp"

namespace tb::compat {
namespace {

struct NamedGpu {
  const char* testName;
  const char* name;
  GpuClass expected;
};

// gtest prints a failing parameter with this instead of its raw bytes.
void PrintTo(const NamedGpu& row, std::ostream* out) { *out << row.testName; }

class GpuClassing : public ::testing::TestWithParam<NamedGpu> {};

TEST_P(GpuClassing, Classify) {
  EXPECT_EQ(toString(classifyGpu(GetParam().name)), toString(GetParam().expected))
      << "'" << GetParam().name << "'";
}

constexpr GpuClass kDc = GpuClass::DataCenter;
constexpr GpuClass kWs = GpuClass::Workstation;
constexpr GpuClass kCon = GpuClass::Consumer;
constexpr GpuClass kUnk = GpuClass::Unknown;

const NamedGpu kNames[] = {
    {"h100_sxm", "NVIDIA H100 80GB HBM3", kDc},
    {"h100_pcie", "NVIDIA H100 PCIe", kDc},
    {"h100_nvl", "NVIDIA H100 NVL", kDc},
    {"h800", "NVIDIA H800", kDc},
    {"h20", "NVIDIA H20", kDc},
    {"h200", "NVIDIA H200", kDc},
    {"gh200", "NVIDIA GH200 480GB", kDc},
    {"a100_sxm4_dashes", "NVIDIA A100-SXM4-80GB", kDc},
    {"a100_pcie", "NVIDIA A100 80GB PCIe", kDc},
    {"a800", "NVIDIA A800-SXM4-80GB", kDc},
    {"a10_is_not_a100", "NVIDIA A10", kDc},
    {"a10g", "NVIDIA A10G", kDc},
    {"a2", "NVIDIA A2", kDc},
    {"a16", "NVIDIA A16", kDc},
    {"a30", "NVIDIA A30", kDc},
    {"a40", "NVIDIA A40", kDc},
    {"l4", "NVIDIA L4", kDc},
    {"l20", "NVIDIA L20", kDc},
    {"l20a", "NVIDIA L20A", kDc},
    {"l20c", "NVIDIA L20C", kDc},
    {"l40", "NVIDIA L40", kDc},
    {"l40s", "NVIDIA L40S", kDc},
    {"b200", "NVIDIA B200", kDc},
    {"b300", "NVIDIA B300 SXM6 AC", kDc},
    {"gb200", "NVIDIA GB200", kDc},
    {"gb300", "NVIDIA GB300", kDc},
    {"tesla_v100_sxm2", "Tesla V100-SXM2-32GB", kDc},
    {"tesla_t4", "Tesla T4", kDc},
    {"tesla_k80", "Tesla K80", kDc},
    {"tesla_m60", "Tesla M60", kDc},
    {"tesla_p4", "Tesla P4", kDc},
    {"tesla_p40", "Tesla P40", kDc},
    {"tesla_p100", "Tesla P100-PCIE-16GB", kDc},
    {"tesla_prefix_alone_is_enough", "Tesla X9000", kDc},
    {"lower_case_name", "nvidia h100 80gb hbm3", kDc},
    {"name_without_brand_prefix", "A100", kDc},
    {"surrounding_spaces", "  NVIDIA L40S  ", kDc},
    {"rtx_pro_6000_server", "NVIDIA RTX PRO 6000 Blackwell Server Edition", kDc},
    {"rtx_pro_6000_workstation", "NVIDIA RTX PRO 6000 Blackwell Workstation Edition", kWs},
    {"rtx_pro_6000_max_q", "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", kWs},
    {"rtx_a6000_is_not_data_center", "NVIDIA RTX A6000", kWs},
    {"rtx_a5500", "NVIDIA RTX A5500", kWs},
    {"rtx_a4000", "NVIDIA RTX A4000", kWs},
    {"rtx_6000_ada", "NVIDIA RTX 6000 Ada Generation", kWs},
    {"rtx_4000_ada", "NVIDIA RTX 4000 Ada Generation", kWs},
    {"quadro_rtx_8000", "Quadro RTX 8000", kWs},
    {"quadro_rtx_6000", "Quadro RTX 6000", kWs},
    {"rtx_8000_without_quadro", "NVIDIA RTX 8000", kWs},
    {"quadro_p6000", "Quadro P6000", kWs},
    {"geforce_rtx_4090", "NVIDIA GeForce RTX 4090", kCon},
    {"geforce_rtx_5090", "NVIDIA GeForce RTX 5090", kCon},
    {"geforce_gtx_1080_ti", "NVIDIA GeForce GTX 1080 Ti", kCon},
    {"rtx_3090_typed_without_geforce", "RTX 3090", kCon},
    {"titan_rtx_is_consumer_not_workstation", "NVIDIA TITAN RTX", kCon},
    {"titan_v", "NVIDIA TITAN V", kCon},
    {"empty_name", "", kUnk},
    {"only_the_brand", "NVIDIA", kUnk},
    {"a1000_is_not_a100", "NVIDIA A1000", kUnk},
    {"h1000_is_not_h100", "NVIDIA H1000", kUnk},
    {"other_vendor", "Matrox G200eR2", kUnk},
    {"l40s_as_substring_of_a_word", "NVIDIA XL40S", kUnk},
};

INSTANTIATE_TEST_SUITE_P(Names, GpuClassing, ::testing::ValuesIn(kNames),
                         [](const ::testing::TestParamInfo<NamedGpu>& entry) {
                           return std::string(entry.param.testName);
                         });

TEST(GpuClass, ClassNamesAreTheJsonValues) {
  EXPECT_EQ(toString(GpuClass::DataCenter), "data-center");
  EXPECT_EQ(toString(GpuClass::Workstation), "workstation");
  EXPECT_EQ(toString(GpuClass::Consumer), "consumer");
  EXPECT_EQ(toString(GpuClass::Unknown), "unknown");
}

TEST(GpuClass, KnownNamesAreUniqueAndAllRecognised) {
  const auto& names = knownGpuNames();
  ASSERT_GE(names.size(), 30U);
  std::set<std::string> seen;
  for (const auto& name : names) {
    EXPECT_TRUE(seen.insert(name).second) << "duplicate '" << name << "'";
    EXPECT_NE(classifyGpu(name), GpuClass::Unknown) << "'" << name << "'";
  }
}

TEST(GpuClass, KnownNamesCoverEveryRecognisedClass) {
  std::set<GpuClass> classes;
  for (const auto& name : knownGpuNames()) classes.insert(classifyGpu(name));
  EXPECT_EQ(classes.count(GpuClass::DataCenter), 1U);
  EXPECT_EQ(classes.count(GpuClass::Workstation), 1U);
  EXPECT_EQ(classes.count(GpuClass::Consumer), 1U);
}

}  // namespace
}  // namespace tb::compat
