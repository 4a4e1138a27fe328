// The small lookups of catalog.hpp that the verdict, the CLI and the GUI call
// with user input: architecture names, tags, branches, components.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "tb/catalog/catalog_loader.hpp"

namespace {

using namespace tb::catalog;

TEST(CatalogLookup, ParseCpuArchAcceptsOciAndKernelNamesInAnyCase) {
  EXPECT_EQ(parseCpuArch("amd64"), CpuArch::Amd64);
  EXPECT_EQ(parseCpuArch("X86_64"), CpuArch::Amd64);
  EXPECT_EQ(parseCpuArch("arm64"), CpuArch::Arm64);
  EXPECT_EQ(parseCpuArch(" AArch64\n"), CpuArch::Arm64) << "as uname -m prints it";
  for (const char* bad : {"", "i386", "arm", "x86", "amd64 arm64", "ppc64le"}) {
    EXPECT_FALSE(parseCpuArch(bad).has_value()) << "'" << bad << "'";
  }
}

TEST(CatalogLookup, CpuArchNamesRoundTrip) {
  for (const CpuArch arch : {CpuArch::Amd64, CpuArch::Arm64}) {
    EXPECT_EQ(parseCpuArch(toString(arch)), arch);
  }
  EXPECT_EQ(toString(CpuArch::Arm64), "arm64");
}

// The enum in the schema and toString() must name the kinds the same way, or
// a GUI label and a file value would disagree.
TEST(CatalogLookup, BranchKindNamesAreTheSchemasEnum) {
  std::ifstream file(std::filesystem::path(TB_SOURCE_DIR) /
                     "resources/catalog/catalog.schema.json");
  const auto schema = nlohmann::json::parse(file);
  const auto& names = schema.at("$defs").at("driverBranch").at("properties").at("kind").at("enum");
  std::vector<std::string> fromCode;
  for (const BranchKind kind : {BranchKind::LongTermSupport, BranchKind::Production,
                                BranchKind::NewFeature, BranchKind::Legacy}) {
    fromCode.emplace_back(toString(kind));
  }
  EXPECT_EQ(names.get<std::vector<std::string>>(), fromCode);
}

TEST(CatalogLookup, UnknownTagBranchOrComponentIsNothing) {
  const Catalog& catalog = builtinCatalog();
  EXPECT_EQ(catalog.findRelease("24.12"), nullptr);
  EXPECT_EQ(catalog.findRelease(""), nullptr);
  EXPECT_NE(catalog.findRelease("25.09"), nullptr);
  EXPECT_EQ(catalog.findBranch(418), nullptr) << "no real version of R418 is known";
  EXPECT_FALSE(catalog.findRelease("25.04")->componentVersion("nccl").has_value());
  EXPECT_FALSE(catalog.findRelease("25.04")->componentVersion("").has_value());
}

TEST(CatalogLookup, AllowanceAndMustUpgradeAnswerPerBranch) {
  const Release& r = *builtinCatalog().findRelease("25.07");
  EXPECT_EQ(r.allowanceFor(560), nullptr);
  EXPECT_TRUE(r.mustUpgrade(560));
  ASSERT_NE(r.allowanceFor(535), nullptr);
  EXPECT_EQ(r.allowanceFor(535)->branch, 535);
  EXPECT_FALSE(r.mustUpgrade(535));
  EXPECT_FALSE(r.mustUpgrade(570));
}

}  // namespace
