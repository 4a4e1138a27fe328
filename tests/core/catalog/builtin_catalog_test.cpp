// The built-in catalog is data that the verdict trusts, so these tests pin the
// facts that the verdict depends on (NVIDIA's CUDA compatibility rules and
// driver branches, the training-nv-pytorch release notes), and check the
// tables against each other where one is derived from the other.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <thread>
#include <tuple>

#include "tb/catalog/catalog_loader.hpp"

namespace {

using namespace tb::catalog;
using testing::ElementsAre;

const std::filesystem::path kReleasesFile =
    std::filesystem::path(TB_SOURCE_DIR) / "resources" / "catalog" / "releases.json";

const Release& release(const char* tag) {
  const Release* found = builtinCatalog().findRelease(tag);
  if (found == nullptr) throw std::runtime_error(std::string("no release ") + tag);
  return *found;
}

DriverVersion driverVersion(const char* text) { return DriverVersion::parse(text).value(); }

// The guard for builtinCatalog()'s abort: the same bytes, loaded through the
// error-returning path, so a broken resource fails here with its message.
TEST(BuiltinCatalog, ResourceFileLoadsWithoutErrors) {
  const auto loaded = loadCatalogFile(kReleasesFile);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  EXPECT_EQ(loaded->tags(), builtinCatalog().tags());
  EXPECT_EQ(loaded->catalogVersion, builtinCatalog().catalogVersion);
}

TEST(BuiltinCatalog, IsParsedOnceAndSharedAcrossThreads) {
  std::vector<const Catalog*> seen(4, nullptr);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < seen.size(); ++i) {
    threads.emplace_back([&seen, i] { seen[i] = &builtinCatalog(); });
  }
  for (auto& thread : threads) thread.join();
  for (const Catalog* catalog : seen) EXPECT_EQ(catalog, &builtinCatalog());
}

TEST(BuiltinCatalog, DescribesItselfAndItsSource) {
  const Catalog& catalog = builtinCatalog();
  EXPECT_EQ(catalog.schemaVersion, 1);
  EXPECT_EQ(catalog.catalogVersion, "2026.11.1");
  EXPECT_THAT(catalog.sources, ElementsAre("built-in releases.json"));
}

TEST(BuiltinCatalog, HoldsTheSixReleasesInTagOrder) {
  EXPECT_THAT(builtinCatalog().tags(),
              ElementsAre("25.04", "25.06", "25.07", "25.08", "25.09", "25.10"));
}

TEST(BuiltinCatalog, Release2504RequiresDriver570AndLaterOnes575) {
  EXPECT_EQ(release("25.04").requiredDriverMajor, 570);
  for (const char* tag : {"25.06", "25.07", "25.08", "25.09", "25.10"}) {
    EXPECT_EQ(release(tag).requiredDriverMajor, 575) << tag;
  }
}

TEST(BuiltinCatalog, Release2510IsTheFirstWithArm64) {
  EXPECT_TRUE(release("25.10").hasArchitecture(CpuArch::Amd64));
  EXPECT_TRUE(release("25.10").hasArchitecture(CpuArch::Arm64));
  for (const char* tag : {"25.04", "25.06", "25.07", "25.08", "25.09"}) {
    EXPECT_TRUE(release(tag).hasArchitecture(CpuArch::Amd64)) << tag;
    EXPECT_FALSE(release(tag).hasArchitecture(CpuArch::Arm64)) << tag;
  }
}

TEST(BuiltinCatalog, Release2509ListsR545BothAsAllowedAndAsMustUpgrade) {
  const Release& r = release("25.09");
  ASSERT_NE(r.allowanceFor(545), nullptr);
  EXPECT_EQ(r.allowanceFor(545)->minimum, driverVersion("545.23"));
  EXPECT_TRUE(r.mustUpgrade(545)) << "the notes contradict themselves; the catalog records both";
}

TEST(BuiltinCatalog, EveryReleaseCopiesNgcsForwardCompatParagraph) {
  for (const Release& r : builtinCatalog().releases) {
    ASSERT_EQ(r.forwardCompat.size(), 4U) << r.tag;
    EXPECT_EQ(r.allowanceFor(470)->minimum, driverVersion("470.57")) << r.tag;
    EXPECT_EQ(r.allowanceFor(525)->minimum, driverVersion("525.85")) << r.tag;
    EXPECT_EQ(r.allowanceFor(535)->minimum, driverVersion("535.86")) << r.tag;
    EXPECT_EQ(r.allowanceFor(545)->minimum, driverVersion("545.23")) << r.tag;
    EXPECT_THAT(r.mustUpgradeBranches,
                ElementsAre(418, 440, 450, 460, 510, 520, 530, 545, 555, 560))
        << r.tag;
    EXPECT_EQ(r.allowanceFor(550), nullptr) << r.tag;
  }
}

TEST(BuiltinCatalog, ImageReferencesCarryTheTagAndTheVpcPlaceholder) {
  for (const Release& r : builtinCatalog().releases) {
    const std::string repository = "/egslingjun/training-nv-pytorch:" + r.tag + "-serverless";
    EXPECT_EQ(r.image, "egslingjun-registry.cn-wulanchabu.cr.aliyuncs.com" + repository);
    EXPECT_EQ(r.vpcImagePattern, "acs-registry-vpc.{region-id}.cr.aliyuncs.com" + repository);
    EXPECT_THAT(r.vpcRegions, ElementsAre("cn-beijing"));
    std::string dashed = r.tag;
    dashed[2] = '-';
    const std::string notes = "https://www.alibabacloud.com/help/en/cs/user-guide/";
    EXPECT_EQ(r.notesUrl, notes + "training-nv-pytorch-" + dashed);
    EXPECT_FALSE(r.highlights.empty()) << r.tag;
  }
}

TEST(BuiltinCatalog, CudaVersionsAreAsPreciseAsTheNotes) {
  EXPECT_EQ(release("25.04").cudaVersion, "12.8.1");
  EXPECT_EQ(release("25.06").cudaVersion, "12.8.0");
  EXPECT_EQ(release("25.09").cudaVersion, "12.8.0");
  EXPECT_EQ(release("25.10").cudaVersion, "12.8");
}

TEST(BuiltinCatalog, ComponentsAreThoseTheNotesList) {
  EXPECT_EQ(release("25.04").componentVersion("torch"), "2.6.0.7");
  EXPECT_EQ(release("25.04").componentVersion("accl"), "2.23.4.12");
  EXPECT_EQ(release("25.04").baseImage, "NGC PyTorch 25.03");
  EXPECT_EQ(release("25.09").componentVersion("flash_attn"), "2.8.3");
  EXPECT_EQ(release("25.09").componentVersion("vllm"), "0.10.1.1");
  EXPECT_EQ(release("25.10").componentVersion("transformer_engine"), "2.4.0+3cd6870c");
  EXPECT_EQ(release("25.10").componentVersion("megatron_core"), "0.14.0");
  EXPECT_EQ(release("25.10").components.front().name, "torch") << "file order is kept";
  // 25.06's notes give no TransformerEngine version nor base image: omitted, not invented.
  EXPECT_FALSE(release("25.06").componentVersion("transformer_engine").has_value());
  EXPECT_TRUE(release("25.06").baseImage.empty());
}

TEST(BuiltinCatalog, ToolkitTableMapsCuda128GaTo57026) {
  const auto& rows = builtinCatalog().toolkitDrivers;
  const auto row = [&](const char* cuda) -> const ToolkitDriverRequirement& {
    for (const auto& r : rows) {
      if (r.cudaVersion == cuda) return r;
    }
    throw std::runtime_error(std::string("no toolkit row ") + cuda);
  };
  EXPECT_EQ(row("12.8.0").cudaRelease, "12.8 GA");
  EXPECT_EQ(row("12.8.0").minimumLinux, driverVersion("570.26"));
  EXPECT_EQ(row("12.8.1").minimumLinux.text(), "570.124.06");
  EXPECT_EQ(row("13.1.0").minimumLinux.text(), "590.44.01");
  EXPECT_EQ(row("11.0.3").minimumLinux.text(), "450.51.06") << "the 11.x rows are included";
  const auto cudaKey = [](const ToolkitDriverRequirement& r) {
    int major = 0, minor = 0, patch = 0;
    EXPECT_EQ(std::sscanf(r.cudaVersion.c_str(), "%d.%d.%d", &major, &minor, &patch), 3);
    return std::tuple(major, minor, patch);
  };
  for (std::size_t i = 1; i < rows.size(); ++i) {
    EXPECT_LT(cudaKey(rows[i - 1]), cudaKey(rows[i])) << "sorted by CUDA version, no duplicates";
    EXPECT_LE(rows[i - 1].minimumLinux, rows[i].minimumLinux)
        << "a newer CUDA never needs an older driver: " << rows[i].cudaRelease;
  }
}

TEST(BuiltinCatalog, DriverBranchesCarryNvidiasLifecycle) {
  const Catalog& catalog = builtinCatalog();
  const DriverBranch* r535 = catalog.findBranch(535);
  ASSERT_NE(r535, nullptr);
  EXPECT_EQ(r535->kind, BranchKind::LongTermSupport);
  EXPECT_EQ(r535->endOfLife, "2026-06");
  EXPECT_TRUE(r535->inForwardCompatMatrix);
  EXPECT_EQ(r535->representative.text(), "535.104.05");
  EXPECT_EQ(r535->maxCuda, "12.2");
  EXPECT_EQ(catalog.findBranch(580)->endOfLife, "2028-06");
  EXPECT_EQ(catalog.findBranch(570)->maxCuda, "12.8");
  EXPECT_FALSE(catalog.findBranch(570)->endOfLife.has_value());
  std::set<int> inMatrix;
  for (const DriverBranch& b : catalog.driverBranches) {
    if (b.inForwardCompatMatrix) inMatrix.insert(b.branch);
  }
  EXPECT_EQ(inMatrix, (std::set<int>{535, 570, 580, 590}));
}

// representative and max_cuda are derived from the toolkit table; this keeps
// the two tables from drifting apart when either is edited.
TEST(BuiltinCatalog, BranchRowsAgreeWithTheToolkitTable) {
  const Catalog& catalog = builtinCatalog();
  for (const DriverBranch& b : catalog.driverBranches) {
    const ToolkitDriverRequirement* newest = nullptr;
    for (const auto& row : catalog.toolkitDrivers) {
      if (row.minimumLinux.major() != b.branch) continue;
      if (newest == nullptr || newest->minimumLinux < row.minimumLinux) newest = &row;
    }
    ASSERT_NE(newest, nullptr) << "R" << b.branch << " has no real version in the toolkit table";
    EXPECT_EQ(b.representative, newest->minimumLinux) << "R" << b.branch;
    EXPECT_EQ(b.maxCuda + " ", newest->cudaRelease.substr(0, b.maxCuda.size() + 1))
        << "R" << b.branch;
  }
  for (std::size_t i = 1; i < catalog.driverBranches.size(); ++i) {
    EXPECT_LT(catalog.driverBranches[i - 1].branch, catalog.driverBranches[i].branch);
  }
}

}  // namespace
