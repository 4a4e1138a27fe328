// Bad input to `trainbench compat`: each is exit code 2, nothing on stdout,
// and a message on stderr that names the option and the value at fault.
#include <gtest/gtest.h>

#include "cli_runner.hpp"

namespace tb::cli::test {
namespace {

// Runs compat with a complete, valid host plus `extra` (later options win).
CliRun compatWith(const std::vector<std::string>& extra) {
  std::vector<std::string> args{"compat", "--driver", "575.57.08", "--gpu", "NVIDIA H100 80GB HBM3",
                                "--arch", "amd64"};
  args.insert(args.end(), extra.begin(), extra.end());
  return runCli(args);
}

void expectBadInput(const CliRun& run, const std::vector<std::string>& mentions) {
  EXPECT_EQ(run.exitCode, 2) << run.out << run.err;
  EXPECT_TRUE(run.out.empty()) << run.out;
  for (const auto& text : mentions) {
    EXPECT_NE(run.err.find(text), std::string::npos)
        << "'" << text << "' missing from: " << run.err;
  }
}

TEST(CliCompatInput, UnknownTagExitsTwoListingKnownTags) {
  const CliRun run = compatWith({"--image", "24.12", "--json"});
  std::vector<std::string> mentions{"24.12", "known tags"};
  mentions.insert(mentions.end(), builtinTags().begin(), builtinTags().end());
  expectBadInput(run, mentions);
}

TEST(CliCompatInput, MalformedDriverExitsTwoNamingOptionAndValue) {
  expectBadInput(compatWith({"--image", "25.04", "--driver", "57x", "--json"}),
                 {"--driver", "'57x'"});
}

TEST(CliCompatInput, FourPartDriverExitsTwo) {
  expectBadInput(compatWith({"--image", "25.04", "--driver", "570.1.2.3"}),
                 {"--driver", "570.1.2.3"});
}

TEST(CliCompatInput, UnknownArchitectureExitsTwoNamingValue) {
  expectBadInput(compatWith({"--image", "25.04", "--arch", "ppc64le"}),
                 {"--arch", "'ppc64le'", "amd64", "arm64"});
}

TEST(CliCompatInput, ZeroGpuCountExitsTwoNamingValue) {
  expectBadInput(compatWith({"--image", "25.04", "--gpu-count", "0"}), {"--gpu-count", "'0'"});
}

TEST(CliCompatInput, NonNumericGpuCountExitsTwoNamingValue) {
  expectBadInput(compatWith({"--image", "25.04", "--gpu-count", "eight"}),
                 {"--gpu-count", "'eight'"});
}

TEST(CliCompatInput, EmptyGpuNameExitsTwo) {
  expectBadInput(compatWith({"--image", "25.04", "--gpu", " "}), {"--gpu"});
}

TEST(CliCompatInput, ImageOfAnotherRepositoryExitsTwoNamingIt) {
  expectBadInput(compatWith({"--image", "nvcr.io/nvidia/pytorch:25.04-py3"}),
                 {"nvcr.io/nvidia/pytorch:25.04-py3", "training-nv-pytorch"});
}

TEST(CliCompatInput, ImageAndAllTogetherExitTwo) {
  expectBadInput(compatWith({"--image", "25.04", "--all"}), {"--all", "--image"});
}

TEST(CliCompatInput, NeitherImageNorAllExitsTwoSayingWhatToGive) {
  expectBadInput(compatWith({"--json"}), {"--image", "--all"});
}

}  // namespace
}  // namespace tb::cli::test
