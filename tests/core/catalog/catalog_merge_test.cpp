// An extra catalog (--catalog FILE, or the GUI's menu entry) is laid over the
// built-in one. These tests pin what "laid over" means row by row, and that a
// refused extra catalog changes nothing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "tb/catalog/catalog_loader.hpp"

namespace {

using namespace tb::catalog;
using testing::ElementsAre;

const std::filesystem::path kFixtures = std::filesystem::path(TB_TEST_DATA_DIR) / "catalogs";

Catalog extraCatalog() {
  auto loaded = loadCatalogFile(kFixtures / "valid_extra.json");
  if (!loaded) throw std::runtime_error(loaded.error().message);
  return std::move(loaded).value();
}

TEST(CatalogMerge, ExtraCatalogAddsANewRelease) {
  const Catalog merged = mergeCatalogs(builtinCatalog(), extraCatalog());
  EXPECT_THAT(merged.tags(),
              ElementsAre("25.04", "25.06", "25.07", "25.08", "25.09", "25.10", "25.11"));
  ASSERT_NE(merged.findRelease("25.11"), nullptr);
  EXPECT_TRUE(merged.findRelease("25.11")->hasArchitecture(CpuArch::Arm64));
}

TEST(CatalogMerge, ReleaseWithTheSameTagReplacesTheBaseOne) {
  const Catalog merged = mergeCatalogs(builtinCatalog(), extraCatalog());
  const Release* replaced = merged.findRelease("25.09");
  ASSERT_NE(replaced, nullptr);
  EXPECT_EQ(replaced->requiredDriverMajor, 580);
  EXPECT_THAT(replaced->highlights, ElementsAre("Replaced by the extra catalog."));
  EXPECT_EQ(merged.findRelease("25.08")->requiredDriverMajor, 575) << "others untouched";
}

TEST(CatalogMerge, SourcesAreConcatenatedInOrder) {
  const Catalog merged = mergeCatalogs(builtinCatalog(), extraCatalog());
  EXPECT_THAT(merged.sources,
              ElementsAre("built-in releases.json", (kFixtures / "valid_extra.json").string()));
  EXPECT_EQ(merged.catalogVersion, builtinCatalog().catalogVersion);
}

TEST(CatalogMerge, TableRowsAreReplacedByKeyAndAddedOtherwise) {
  const Catalog& base = builtinCatalog();
  const Catalog merged = mergeCatalogs(base, extraCatalog());
  EXPECT_EQ(merged.toolkitDrivers.size(), base.toolkitDrivers.size() + 1);
  const auto replaced = std::find_if(merged.toolkitDrivers.begin(), merged.toolkitDrivers.end(),
                                     [](const auto& row) { return row.cudaVersion == "12.8.0"; });
  ASSERT_NE(replaced, merged.toolkitDrivers.end());
  EXPECT_EQ(replaced->minimumLinux.text(), "570.26.99");
  EXPECT_EQ(merged.toolkitDrivers.back().cudaVersion, "99.0.0") << "kept sorted";
  EXPECT_EQ(merged.driverBranches.size(), base.driverBranches.size() + 1);
  ASSERT_NE(merged.findBranch(999), nullptr);
  EXPECT_EQ(merged.findBranch(999)->kind, BranchKind::NewFeature);
  EXPECT_EQ(merged.driverBranches.back().branch, 999);
}

TEST(CatalogMerge, ExtraWithoutTablesKeepsTheBaseTables) {
  Catalog extra = extraCatalog();
  extra.toolkitDrivers.clear();
  extra.driverBranches.clear();
  const Catalog merged = mergeCatalogs(builtinCatalog(), extra);
  EXPECT_EQ(merged.toolkitDrivers.size(), builtinCatalog().toolkitDrivers.size());
  EXPECT_EQ(merged.driverBranches.size(), builtinCatalog().driverBranches.size());
}

TEST(CatalogMerge, NewTagsAreSortedIntoPlace) {
  Catalog extra = extraCatalog();
  ASSERT_EQ(extra.releases.front().tag, "25.09");
  extra.releases.front().tag = "25.05";
  const Catalog merged = mergeCatalogs(builtinCatalog(), extra);
  EXPECT_THAT(merged.tags(),
              ElementsAre("25.04", "25.05", "25.06", "25.07", "25.08", "25.09", "25.10", "25.11"));
}

TEST(CatalogMerge, RefusedExtraCatalogLeavesTheBaseUntouched) {
  Catalog active = builtinCatalog();
  const auto before = active.tags();
  for (const char* bad : {"duplicate_tag.json", "truncated.json", "wrong_type.json"}) {
    const auto extra = loadCatalogFile(kFixtures / bad);
    ASSERT_FALSE(extra.ok()) << bad;
    if (extra.ok()) active = mergeCatalogs(active, *extra);
  }
  EXPECT_EQ(active.tags(), before);
  EXPECT_THAT(active.sources, ElementsAre("built-in releases.json"));
  EXPECT_EQ(builtinCatalog().releases.size(), 6U);
}

}  // namespace
