// The nvidia-smi CSV and /proc/driver/nvidia/version parsers on files in the
// shapes real drivers print (tests/data/host): separators with spaces, CRLF,
// blank trailing lines, "[N/A]", proprietary and open kernel modules, x86_64
// and aarch64, and the malformed ones whose errors must name the line.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tb/compat/host_detection.hpp"

namespace tb::compat {
namespace {

std::string fixtureText(const std::string& name) {
  std::ifstream in(std::string(TB_TEST_DATA_DIR) + "/host/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << "missing fixture " << name;
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

TEST(NvidiaSmiCsv, EightH100sGiveEightRows) {
  const auto rows = parseNvidiaSmiCsv(fixtureText("nvidia-smi-8xh100.csv"));
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->size(), 8U);
  for (const auto& row : *rows) {
    EXPECT_EQ(row.driver.text(), "535.104.05");
    EXPECT_EQ(row.name, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(row.count, 8);
  }
}

TEST(NvidiaSmiCsv, CrlfTrailingSpacesAndBlankLastLineAreTolerated) {
  const auto rows = parseNvidiaSmiCsv(fixtureText("nvidia-smi-1xa10-crlf.csv"));
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->size(), 1U);
  EXPECT_EQ(rows->front().driver.text(), "550.54.15");
  EXPECT_EQ(rows->front().name, "NVIDIA A10");
  EXPECT_EQ(rows->front().count, 1);

  const auto inlineRows = parseNvidiaSmiCsv("570.26, NVIDIA L4, 1\r\n \r\n");
  ASSERT_TRUE(inlineRows.ok()) << inlineRows.error().message;
  EXPECT_EQ(inlineRows->front().name, "NVIDIA L4");
}

TEST(NvidiaSmiCsv, MixedGpusKeepTheirOrder) {
  const auto rows = parseNvidiaSmiCsv(fixtureText("nvidia-smi-mixed.csv"));
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->size(), 3U);
  EXPECT_EQ((*rows)[0].name, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ((*rows)[2].name, "Tesla T4");
  EXPECT_EQ((*rows)[2].driver.text(), "570.124.06");
}

TEST(NvidiaSmiCsv, NotAvailableNameAndCountBecomeUnknown) {
  const auto rows = parseNvidiaSmiCsv(fixtureText("nvidia-smi-na-fields.csv"));
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->size(), 1U);
  EXPECT_EQ(rows->front().driver.text(), "580.65.06");
  EXPECT_EQ(rows->front().name, "");
  EXPECT_EQ(rows->front().count, 0);
}

TEST(NvidiaSmiCsv, NotAvailableDriverIsAnErrorNamingTheLine) {
  const auto rows = parseNvidiaSmiCsv("[N/A], NVIDIA H100 80GB HBM3, 1\n");
  ASSERT_FALSE(rows.ok());
  EXPECT_EQ(rows.error().message, "nvidia-smi output line 1: the driver version is [N/A]");
}

TEST(NvidiaSmiCsv, DriverFailureMessageIsRefusedAndQuoted) {
  const auto rows = parseNvidiaSmiCsv(fixtureText("nvidia-smi-driver-not-loaded.txt"));
  ASSERT_FALSE(rows.ok());
  EXPECT_EQ(rows.error().kind, ErrorKind::Parse);
  EXPECT_NE(rows.error().message.find("line 1: expected 'driver_version, name, count', got "
                                      "'NVIDIA-SMI has failed"),
            std::string::npos)
      << rows.error().message;
  EXPECT_NE(rows.error().message.find("...'"), std::string::npos) << "long lines are cut short";
}

TEST(NvidiaSmiCsv, BadCountNamesLineAndValue) {
  const auto rows = parseNvidiaSmiCsv(fixtureText("nvidia-smi-bad-count.csv"));
  ASSERT_FALSE(rows.ok());
  EXPECT_EQ(rows.error().message,
            "nvidia-smi output line 2: GPU count 'two' is not a number of GPUs");
}

TEST(NvidiaSmiCsv, BadDriverNamesLineAndValue) {
  const auto rows = parseNvidiaSmiCsv(fixtureText("nvidia-smi-bad-driver.csv"));
  ASSERT_FALSE(rows.ok());
  EXPECT_NE(rows.error().message.find("nvidia-smi output line 2: driver version '535.x'"),
            std::string::npos)
      << rows.error().message;
}

TEST(NvidiaSmiCsv, EmptyOutputListsNoGpu) {
  for (const char* output : {"", "\n", "\r\n\r\n"}) {
    const auto rows = parseNvidiaSmiCsv(output);
    ASSERT_FALSE(rows.ok());
    EXPECT_EQ(rows.error().message, "nvidia-smi output lists no GPU");
  }
}

TEST(NvidiaSmiCsv, TwoFieldLineIsRefused) {
  const auto rows = parseNvidiaSmiCsv("535.104.05, NVIDIA H100 80GB HBM3\n");
  ASSERT_FALSE(rows.ok());
  EXPECT_NE(rows.error().message.find("line 1"), std::string::npos);
}

struct ProcFile {
  const char* testName;
  const char* file;
  const char* version;
};

// gtest prints a failing parameter with this instead of its raw bytes.
void PrintTo(const ProcFile& row, std::ostream* out) { *out << row.testName; }

class ProcDriverVersionFile : public ::testing::TestWithParam<ProcFile> {};

TEST_P(ProcDriverVersionFile, Parses) {
  const auto version = parseProcDriverVersion(fixtureText(GetParam().file));
  ASSERT_TRUE(version.ok()) << version.error().message;
  EXPECT_EQ(version->text(), GetParam().version);
}

const ProcFile kProcFiles[] = {
    {"proprietary_x86_64", "proc-version-proprietary-x86_64.txt", "535.104.05"},
    {"open_module_x86_64", "proc-version-open-x86_64.txt", "570.124.06"},
    {"open_module_aarch64", "proc-version-open-aarch64.txt", "580.65.06"},
    {"proprietary_aarch64", "proc-version-proprietary-aarch64.txt", "550.54.15"},
};

INSTANTIATE_TEST_SUITE_P(Formats, ProcDriverVersionFile, ::testing::ValuesIn(kProcFiles),
                         [](const ::testing::TestParamInfo<ProcFile>& entry) {
                           return std::string(entry.param.testName);
                         });

TEST(ProcDriverVersion, TwoPartVersionOfOldDriversParses) {
  const auto version = parseProcDriverVersion(
      "NVRM version: NVIDIA UNIX x86_64 Kernel Module  390.144  Wed Jun  2 23:16:03 UTC 2021\n");
  ASSERT_TRUE(version.ok()) << version.error().message;
  EXPECT_EQ(version->major(), 390);
  EXPECT_EQ(version->minor(), 144);
}

TEST(ProcDriverVersion, MalformedVersionIsNamed) {
  const auto version = parseProcDriverVersion(fixtureText("proc-version-bad-version.txt"));
  ASSERT_FALSE(version.ok());
  EXPECT_EQ(version.error().kind, ErrorKind::Parse);
  EXPECT_NE(version.error().message.find("'535.1o4.05'"), std::string::npos)
      << version.error().message;
}

TEST(ProcDriverVersion, FileWithoutNvrmLineIsRefused) {
  const auto version = parseProcDriverVersion(fixtureText("proc-version-no-nvrm-line.txt"));
  ASSERT_FALSE(version.ok());
  EXPECT_EQ(version.error().message, "driver version file: no 'NVRM version:' line");
}

TEST(ProcDriverVersion, NvrmLineWithoutVersionIsRefused) {
  const auto version = parseProcDriverVersion(
      "NVRM version: NVIDIA UNIX Open Kernel Module for "
      "x86_64\n");
  ASSERT_FALSE(version.ok());
  EXPECT_NE(version.error().message.find("no version after 'Kernel Module'"), std::string::npos);
}

TEST(ProcDriverVersion, NvrmLineWithoutKernelModuleIsRefused) {
  const auto version = parseProcDriverVersion("NVRM version: something else entirely\n");
  ASSERT_FALSE(version.ok());
  EXPECT_NE(version.error().message.find("names no kernel module"), std::string::npos);
}

}  // namespace
}  // namespace tb::compat
