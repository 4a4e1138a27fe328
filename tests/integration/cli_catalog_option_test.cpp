// The global --catalog option: an extra catalog file is laid over the built-in
// one, and a file that cannot be used is refused with exit code 2 and the
// loader's message (file, JSON path, what is wrong), before any output.
#include <gtest/gtest.h>

#include "cli_runner.hpp"

namespace tb::cli::test {
namespace {

using nlohmann::json;

const json* findRelease(const json& doc, const std::string& tag) {
  for (const auto& release : doc.at("releases")) {
    if (release.at("tag") == tag) return &release;
  }
  return nullptr;
}

TEST(CliCatalogOption, ExtraCatalogAddsReleaseToImagesJson) {
  const CliRun run = runCli({"--catalog", fixture("catalog-extra-26.01.json"), "images", "--json"});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const json doc = parseSingleDocument(run);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc.at("releases").size(), builtinTags().size() + 1);
  const json* added = findRelease(doc, "26.01");
  ASSERT_NE(added, nullptr) << run.out;
  EXPECT_EQ(added->at("required_driver"), 580);
  ASSERT_NE(findRelease(doc, "25.04"), nullptr);
  const auto& sources = doc.at("sources");
  EXPECT_NE(sources.back().get<std::string>().find("catalog-extra-26.01.json"), std::string::npos)
      << sources;
}

TEST(CliCatalogOption, ExtraCatalogReleaseShowsInTextTable) {
  const CliRun run = runCli({"images", "--catalog", fixture("catalog-extra-26.01.json")});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  EXPECT_NE(run.out.find("\n26.01 "), std::string::npos) << run.out;
}

TEST(CliCatalogOption, ExtraCatalogReleaseCanBeJudged) {
  const CliRun run = runCli({"--catalog", fixture("catalog-extra-26.01.json"), "compat", "--image",
                             "26.01", "--driver", "570.124.06", "--gpu", "NVIDIA GeForce RTX 4090",
                             "--arch", "amd64", "--json"});
  EXPECT_EQ(run.exitCode, 3) << run.err;
  const json doc = parseSingleDocument(run);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc.at("image"), "26.01");
  EXPECT_EQ(doc.at("required_driver"), 580);
  EXPECT_EQ(doc.at("status"), "unsupported");
}

TEST(CliCatalogOption, RepeatedCatalogFilesApplyInOrderLaterWins) {
  const CliRun run = runCli({"--catalog", fixture("catalog-extra-26.01.json"), "--catalog",
                             fixture("catalog-override-26.01.json"), "images", "--json"});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const json doc = parseSingleDocument(run);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc.at("sources").size(), 3U) << doc.at("sources");
  EXPECT_EQ(doc.at("releases").size(), builtinTags().size() + 1);
  const json* replaced = findRelease(doc, "26.01");
  ASSERT_NE(replaced, nullptr) << run.out;
  EXPECT_EQ(replaced->at("required_driver"), 590);
  EXPECT_EQ(replaced->at("cuda"), "13.1.0");
}

TEST(CliCatalogOption, MalformedCatalogExitsTwoNamingFileAndJsonPath) {
  const std::string file = fixture("catalog-malformed.json");
  const CliRun run = runCli({"--catalog", file, "images", "--json"});
  EXPECT_EQ(run.exitCode, 2);
  EXPECT_TRUE(run.out.empty()) << "nothing may be printed from a refused catalog:\n" << run.out;
  EXPECT_NE(run.err.find("catalog-malformed.json"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("$.releases[0].required_driver"), std::string::npos) << run.err;
}

TEST(CliCatalogOption, MissingCatalogFileExitsTwoNamingIt) {
  const CliRun run = runCli({"--catalog", "/nonexistent/extra.json", "images"});
  EXPECT_EQ(run.exitCode, 2);
  EXPECT_TRUE(run.out.empty()) << run.out;
  EXPECT_NE(run.err.find("/nonexistent/extra.json"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace tb::cli::test
