// The parts of the CLI contract every command shares: --help, --version, and
// exit code 2 with a message for a command line that cannot be parsed.
#include <gtest/gtest.h>

#include <regex>

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

TEST(CliUsage, VersionNamesTheBuildAndEveryLibraryItRunsOn) {
  const CliRun run = runCli({"--version"});
  EXPECT_EQ(run.exitCode, 0) << run.err;
  // First line: the project version and the tree's git description, which
  // the checkout this test builds from has.
  const std::string first = run.out.substr(0, run.out.find('\n'));
  EXPECT_TRUE(first.starts_with(std::string("trainbench ") + TB_EXPECTED_VERSION + " (git "))
      << first;
  // Then one line per library, each with a version the library reported.
  const std::regex version("[0-9]+\\.[0-9]+(\\.[0-9]+)?");
  for (const std::string& name : {std::string("LibTorch"), std::string("oneDNN"),
                                  std::string("BLAS"), std::string("registry client")}) {
    const std::size_t at = run.out.find("\n  " + name + " ");
    ASSERT_NE(at, std::string::npos) << name << " missing from\n" << run.out;
    const std::string line = run.out.substr(at + 1, run.out.find('\n', at + 1) - at - 1);
    EXPECT_TRUE(std::regex_search(line, version)) << line;
  }
  EXPECT_NE(run.out.find("OpenBLAS 0."), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(", kernel "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("libcurl "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("\n  NCCL "), std::string::npos) << run.out;
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
