// `trainbench images`: the table people read and the JSON scripts parse, for
// the six releases of the built-in catalog.
#include <gtest/gtest.h>

#include <sstream>

#include "cli_runner.hpp"

namespace tb::cli::test {
namespace {

using nlohmann::json;

// The line of the text table that starts with the tag.
std::string tableRow(const std::string& text, const std::string& tag) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(tag + " ", 0) == 0) return line;
  }
  return {};
}

TEST(CliImages, TextTableHasHeaderAndOneRowPerRelease) {
  const CliRun run = runCli({"images"});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  for (const char* column : {"TAG", "CUDA", "DRIVER", "ARCH", "TORCH", "BASE"}) {
    EXPECT_NE(run.out.find(column), std::string::npos) << column << " missing from\n" << run.out;
  }
  for (const auto& tag : builtinTags()) {
    EXPECT_FALSE(tableRow(run.out, tag).empty()) << "no row for " << tag << " in\n" << run.out;
  }
  EXPECT_NE(tableRow(run.out, "25.10").find("arm64"), std::string::npos) << run.out;
  EXPECT_EQ(tableRow(run.out, "25.09").find("arm64"), std::string::npos) << run.out;
  EXPECT_NE(tableRow(run.out, "25.04").find(">= 570"), std::string::npos) << run.out;
}

TEST(CliImages, JsonListsTheSixReleasesInTagOrder) {
  const CliRun run = runCli({"images", "--json"});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const json doc = parseSingleDocument(run);
  ASSERT_TRUE(doc.is_object());
  EXPECT_TRUE(doc.at("catalog_version").is_string());
  EXPECT_TRUE(doc.at("sources").is_array());
  std::vector<std::string> tags;
  for (const auto& release : doc.at("releases")) {
    tags.push_back(release.at("tag").get<std::string>());
  }
  EXPECT_EQ(tags, builtinTags());
}

TEST(CliImages, JsonReleaseHasEveryDocumentedField) {
  const json doc = parseSingleDocument(runCli({"images", "--json"}));
  ASSERT_TRUE(doc.is_object());
  for (const auto& release : doc.at("releases")) {
    const std::string tag = release.at("tag").get<std::string>();
    SCOPED_TRACE(tag);
    EXPECT_TRUE(release.at("image").get<std::string>().ends_with(":" + tag + "-serverless"));
    EXPECT_NE(release.at("vpc_image_pattern").get<std::string>().find("{region-id}"),
              std::string::npos);
    EXPECT_TRUE(release.at("vpc_regions").is_array());
    EXPECT_TRUE(release.at("cuda").get<std::string>().starts_with("12.8"));
    EXPECT_GE(release.at("required_driver").get<int>(), 570);
    EXPECT_FALSE(release.at("architectures").empty());
    EXPECT_TRUE(release.at("must_upgrade").is_array());
    EXPECT_TRUE(release.at("base_image").is_string());
    EXPECT_TRUE(release.at("components").at("torch").is_string());
    EXPECT_TRUE(release.at("highlights").is_array());
    EXPECT_TRUE(release.at("notes_url").is_string());
    ASSERT_FALSE(release.at("forward_compat").empty());
    for (const auto& allowance : release.at("forward_compat")) {
      EXPECT_TRUE(allowance.at("branch").is_number_integer());
      EXPECT_TRUE(allowance.at("minimum").get<std::string>().starts_with(
          std::to_string(allowance.at("branch").get<int>()) + "."));
    }
  }
}

TEST(CliImages, JsonMarks2510AsTheFirstArm64Release) {
  const json doc = parseSingleDocument(runCli({"images", "--json"}));
  ASSERT_TRUE(doc.is_object());
  for (const auto& release : doc.at("releases")) {
    const auto& archs = release.at("architectures");
    const bool hasArm64 = std::find(archs.begin(), archs.end(), "arm64") != archs.end();
    const bool hasAmd64 = std::find(archs.begin(), archs.end(), "amd64") != archs.end();
    EXPECT_TRUE(hasAmd64) << release.at("tag");
    EXPECT_EQ(hasArm64, release.at("tag") == "25.10") << release.at("tag");
  }
}

}  // namespace
}  // namespace tb::cli::test
