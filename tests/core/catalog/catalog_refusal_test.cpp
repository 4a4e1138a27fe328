// Every way a catalog file is refused, each from a fixture in
// tests/data/catalogs that is a valid catalog with exactly one defect. The
// assertions pin the whole prefix "<file>: <json path>: " because that is what
// tells a user which line of their file to fix.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tb/catalog/catalog_loader.hpp"

namespace {

using namespace tb::catalog;
using testing::HasSubstr;
using testing::StartsWith;

const std::filesystem::path kRefusalFixtures = std::filesystem::path(TB_TEST_DATA_DIR) / "catalogs";

std::string fixture(const char* name) { return (kRefusalFixtures / name).string(); }

// Loads a fixture that must be refused; returns the message after checking
// the kind and the "<file>: <where>: " prefix.
std::string refusal(const char* name, const std::string& where) {
  const auto loaded = loadCatalogFile(kRefusalFixtures / name);
  if (loaded.ok()) {
    ADD_FAILURE() << name << " was accepted";
    return {};
  }
  EXPECT_EQ(loaded.error().kind, tb::ErrorKind::Parse) << loaded.error().message;
  EXPECT_THAT(loaded.error().message, StartsWith(fixture(name) + ": " + where + ": "));
  return loaded.error().message;
}

TEST(CatalogRefusal, ValidFixtureIsAccepted) {
  const auto loaded = loadCatalogFile(kRefusalFixtures / "valid_extra.json");
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  EXPECT_EQ(loaded->tags(), (std::vector<std::string>{"25.09", "25.11"}));
}

TEST(CatalogRefusal, TextThatIsNotJsonIsRefusedAtLineOneColumnOne) {
  const auto message = refusal("not_json.txt", "line 1, column 1");
  EXPECT_THAT(message, HasSubstr("syntax error"));
  EXPECT_THAT(message, testing::Not(HasSubstr("json.exception"))) << "nlohmann's prefix dropped";
}

TEST(CatalogRefusal, TruncatedJsonIsRefusedWhereTheInputEnds) {
  EXPECT_THAT(refusal("truncated.json", "line 13, column 7"), HasSubstr("unexpected end of input"));
}

TEST(CatalogRefusal, WrongSchemaNameIsRefused) {
  EXPECT_THAT(refusal("wrong_schema_name.json", "$.schema"),
              HasSubstr("expected \"trainbench-catalog\", got string \"other-catalog\""));
}

TEST(CatalogRefusal, WrongSchemaVersionIsRefused) {
  EXPECT_THAT(refusal("wrong_schema_version.json", "$.schema_version"),
              HasSubstr("expected 1, got integer 2"));
}

TEST(CatalogRefusal, MissingRequiredFieldIsRefusedAtItsObject) {
  EXPECT_THAT(refusal("missing_required_field.json", "$.releases[0]"),
              HasSubstr("missing required property \"cuda_version\""));
}

TEST(CatalogRefusal, WrongTypeIsRefusedNamingTheValue) {
  EXPECT_THAT(refusal("wrong_type.json", "$.releases[0].required_driver"),
              HasSubstr("expected an integer, got string \"575\""));
}

TEST(CatalogRefusal, UnknownPropertyIsRefused) {
  EXPECT_THAT(refusal("unknown_property.json", "$.releases[0].colour"),
              HasSubstr("unknown property \"colour\""));
}

TEST(CatalogRefusal, BadTagPatternIsRefused) {
  const auto message = refusal("bad_tag.json", "$.releases[0].tag");
  EXPECT_THAT(message, HasSubstr("\"25.4\" does not match"));
  EXPECT_THAT(message, HasSubstr("(a release tag YY.MM, such as 25.09)")) << "the hint";
}

TEST(CatalogRefusal, UnknownArchitectureIsRefused) {
  EXPECT_THAT(refusal("bad_architecture.json", "$.releases[0].architectures[1]"),
              HasSubstr("\"sparc\" is not one of \"amd64\", \"arm64\""));
}

TEST(CatalogRefusal, DriverStringOfTheWrongShapeIsRefused) {
  EXPECT_THAT(refusal("bad_driver_string.json", "$.releases[0].forward_compat[0].minimum"),
              HasSubstr("\"535.x\" does not match"));
}

TEST(CatalogRefusal, DriverStringThatDoesNotParseIsRefused) {
  EXPECT_THAT(refusal("unparsable_driver.json", "$.releases[0].forward_compat[0].minimum"),
              HasSubstr("'0.57'"));
}

TEST(CatalogRefusal, DuplicateTagIsRefusedAtTheSecondOccurrence) {
  EXPECT_THAT(refusal("duplicate_tag.json", "$.releases[1].tag"),
              HasSubstr("duplicate tag \"25.11\" (first at $.releases[0].tag)"));
}

TEST(CatalogRefusal, AllowanceMinimumOutsideItsBranchIsRefused) {
  EXPECT_THAT(refusal("allowance_outside_branch.json", "$.releases[0].forward_compat[0].minimum"),
              HasSubstr("535.86 is not a version of branch R525"));
}

TEST(CatalogRefusal, EmptyReleasesAreRefused) {
  EXPECT_THAT(refusal("empty_releases.json", "$.releases"),
              HasSubstr("expected at least 1 item, got 0"));
}

TEST(CatalogRefusal, DuplicateDriverBranchIsRefused) {
  EXPECT_THAT(refusal("duplicate_branch.json", "$.driver_branches[1].branch"),
              HasSubstr("duplicate branch 535"));
}

TEST(CatalogRefusal, BranchRepresentativeFromAnotherBranchIsRefused) {
  EXPECT_THAT(refusal("representative_outside_branch.json", "$.driver_branches[0].representative"),
              HasSubstr("470.82.01 is not a version of branch R510"));
}

TEST(CatalogRefusal, ToolkitLabelThatContradictsItsVersionIsRefused) {
  EXPECT_THAT(refusal("toolkit_label_mismatch.json", "$.toolkit_drivers[0].cuda_release"),
              HasSubstr("\"12.8 U1\" does not name the same CUDA release as cuda_version 12.9.1"));
}

TEST(CatalogRefusal, SyntaxErrorColumnCountsCharactersNotBytes) {
  const auto parsed = parseCatalog("{\n  \"caf\xC3\xA9\": x}", "inline.json");
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.error().message, StartsWith("inline.json: line 2, column 11: "));
}

TEST(CatalogRefusal, SeveralProblemsAreReportedInFileOrderUpToALimit) {
  const auto parsed = parseCatalog(R"({"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6})", "x.json");
  ASSERT_FALSE(parsed.ok());
  const std::string& message = parsed.error().message;
  EXPECT_THAT(message, StartsWith("x.json: $: missing required property \"schema\"\n"));
  EXPECT_THAT(message, HasSubstr("x.json: $.a: unknown property \"a\""));
  EXPECT_THAT(message, testing::EndsWith("\nx.json: and 5 more problems"))
      << "4 missing properties + 6 unknown ones, 5 shown";
}

TEST(CatalogRefusal, MissingFileKeepsTheNotFoundKind) {
  const auto loaded = loadCatalogFile(kRefusalFixtures / "no_such_catalog.json");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().kind, tb::ErrorKind::NotFound);
  EXPECT_THAT(loaded.error().message, HasSubstr(fixture("no_such_catalog.json")));
}

TEST(CatalogRefusal, DirectoryKeepsTheBadInputKind) {
  const auto loaded = loadCatalogFile(kRefusalFixtures);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().kind, tb::ErrorKind::BadInput);
}

}  // namespace
