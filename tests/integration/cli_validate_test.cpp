// `trainbench validate`: exit 0 for clean files, 3 when a finding is an
// error, 2 when a file cannot be read; --json is one document with every
// finding's severity, file, line or path, rule, message and fix.
#include <gtest/gtest.h>

#include "cli_runner.hpp"

namespace tb::cli::test {
namespace {

using nlohmann::json;

std::string configFixture(const std::string& name) {
  return std::string(TB_TEST_DATA_DIR) + "/config/" + name;
}

TEST(CliValidate, CleanFilesExitZero) {
  const CliRun run =
      runCli({"validate", configFixture("good.env"), configFixture("good_pod.yaml"),
              configFixture("good_ds_zero3.json"), configFixture("good.Dockerfile")});
  EXPECT_EQ(run.exitCode, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("0 error(s), 0 warning(s)"), std::string::npos) << run.out;
}

TEST(CliValidate, WarningsAloneExitZero) {
  const CliRun run = runCli({"validate", configFixture("bad_command.yaml")});
  EXPECT_EQ(run.exitCode, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("warning"), std::string::npos) << run.out;
}

TEST(CliValidate, ErrorFindingExitsThreeWithFileLineAndFix) {
  const CliRun run = runCli({"validate", configFixture("bad_pip_torch.Dockerfile")});
  EXPECT_EQ(run.exitCode, 3) << run.out << run.err;
  EXPECT_NE(run.out.find("bad_pip_torch.Dockerfile:2: error:"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("fix:"), std::string::npos) << run.out;
}

TEST(CliValidate, JsonListsEveryFindingWithItsFields) {
  const CliRun run = runCli(
      {"validate", configFixture("bad_ifname_16gpu.yaml"), configFixture("good.env"), "--json"});
  EXPECT_EQ(run.exitCode, 3) << run.err;
  const json doc = parseSingleDocument(run);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc.at("ok"), false);
  EXPECT_EQ(doc.at("summary").at("files"), 2);
  EXPECT_EQ(doc.at("summary").at("errors"), 1);
  const json& manifest = doc.at("files")[0];
  EXPECT_EQ(manifest.at("kind"), "k8s");
  const json& finding = manifest.at("findings")[0];
  EXPECT_EQ(finding.at("severity"), "error");
  EXPECT_EQ(finding.at("rule"), "nccl-socket-ifname");
  EXPECT_EQ(finding.at("line"), 13);
  EXPECT_EQ(finding.at("path"), "spec.containers[0].env[1].value");
  EXPECT_NE(finding.at("fix").get<std::string>().find("hpn0"), std::string::npos);
  EXPECT_EQ(doc.at("files")[1].at("errors"), 0);
}

TEST(CliValidate, MalformedFilesAreFindingsNotCrashes) {
  const CliRun run =
      runCli({"validate", configFixture("malformed_ds.json"), configFixture("malformed.yaml"),
              configFixture("malformed.env"), configFixture("no_from.Dockerfile"), "--json"});
  EXPECT_EQ(run.exitCode, 3) << run.err;
  const json doc = parseSingleDocument(run);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc.at("summary").at("files"), 4);
  for (const json& file : doc.at("files")) {
    EXPECT_GE(file.at("errors").get<int>(), 1) << file.dump();
  }
}

TEST(CliValidate, KindOptionOverridesDetection) {
  const CliRun run =
      runCli({"validate", "--kind", "env", configFixture("bad_checkpoint_value.env"), "--json"});
  EXPECT_EQ(run.exitCode, 3) << run.err;
  EXPECT_EQ(parseSingleDocument(run).at("files")[0].at("kind"), "env");
}

TEST(CliValidate, MissingFileExitsTwoNamingIt) {
  const CliRun run = runCli({"validate", configFixture("good.env"), "/no/such/ds.json"});
  EXPECT_EQ(run.exitCode, 2);
  EXPECT_TRUE(run.out.empty()) << run.out;
  EXPECT_NE(run.err.find("/no/such/ds.json"), std::string::npos) << run.err;
}

TEST(CliValidate, UnknownKindAndNoFilesExitTwo) {
  const CliRun badKind = runCli({"validate", "--kind", "helm", configFixture("good.env")});
  EXPECT_EQ(badKind.exitCode, 2);
  EXPECT_NE(badKind.err.find("'helm'"), std::string::npos) << badKind.err;
  EXPECT_EQ(runCli({"validate"}).exitCode, 2);
}

}  // namespace
}  // namespace tb::cli::test
