// The parts of the CLI contract every command shares: --help, --version, and
// exit code 2 with a message for a command line that cannot be parsed.
#include <gtest/gtest.h>

#include "cli_runner.hpp"

namespace tb::cli::test {
namespace {

TEST(CliUsage, TopLevelHelpExitsZeroAndListsCommands) {
  const CliRun run = runCli({"--help"});
  EXPECT_EQ(run.exitCode, 0) << run.err;
  EXPECT_NE(run.out.find("images"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("compat"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("--catalog"), std::string::npos) << run.out;
}

TEST(CliUsage, ImagesHelpExitsZeroAndDescribesJson) {
  const CliRun run = runCli({"images", "--help"});
  EXPECT_EQ(run.exitCode, 0) << run.err;
  EXPECT_NE(run.out.find("--json"), std::string::npos) << run.out;
}

TEST(CliUsage, CompatHelpExitsZeroAndDocumentsOptionsAndExitCodes) {
  const CliRun run = runCli({"compat", "--help"});
  EXPECT_EQ(run.exitCode, 0) << run.err;
  for (const char* option : {"--image", "--all", "--driver", "--gpu", "--gpu-count", "--arch"}) {
    EXPECT_NE(run.out.find(option), std::string::npos) << option << " missing from\n" << run.out;
  }
  EXPECT_NE(run.out.find("Exit codes"), std::string::npos) << run.out;
}

TEST(CliUsage, VersionPrintsProjectVersion) {
  const CliRun run = runCli({"--version"});
  EXPECT_EQ(run.exitCode, 0) << run.err;
  EXPECT_EQ(run.out, std::string("trainbench ") + TB_EXPECTED_VERSION + "\n");
}

TEST(CliUsage, MissingCommandExitsTwoWithMessage) {
  const CliRun run = runCli({});
  EXPECT_EQ(run.exitCode, 2);
  EXPECT_TRUE(run.out.empty()) << run.out;
  EXPECT_NE(run.err.find("trainbench: "), std::string::npos) << run.err;
}

TEST(CliUsage, UnknownCommandExitsTwoNamingIt) {
  const CliRun run = runCli({"frobnicate"});
  EXPECT_EQ(run.exitCode, 2);
  EXPECT_NE(run.err.find("frobnicate"), std::string::npos) << run.err;
}

TEST(CliUsage, UnknownOptionExitsTwoNamingIt) {
  const CliRun run = runCli({"images", "--colour"});
  EXPECT_EQ(run.exitCode, 2);
  EXPECT_NE(run.err.find("--colour"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace tb::cli::test
