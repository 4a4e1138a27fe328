// `trainbench memory` end to end: the JSON fields of the CLI contract, the
// published-architecture path, --gpu-memory as a check (exit 3),
// bad values (exit 2, named), and a stored calibration being applied.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "cli_runner.hpp"

namespace tb::cli::test {
namespace {

// Runs with an empty config directory, so no user calibration leaks in.
std::map<std::string, std::string> cleanConfig(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("tb-cli-memory-" + std::to_string(::getpid()) + "-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return {{"XDG_CONFIG_HOME", dir.string()}};
}

TEST(CliMemory, JsonHasTheContractFieldsAndTheBreakdownSumsToTheTotal) {
  const CliRun run = runCli({"memory", "--model", "tiny", "--json"}, cleanConfig("fields"));
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const auto doc = parseSingleDocument(run);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc["params"], 164'160);
  const auto& b = doc["breakdown"];
  std::uint64_t sum = 0;
  for (const char* term : {"weights", "gradients", "optimizer", "activations", "logits",
                           "recompute", "workspace", "overhead", "allocator_cache"}) {
    ASSERT_TRUE(b.contains(term)) << term;
    sum += b[term].get<std::uint64_t>();
  }
  EXPECT_EQ(doc["total_bytes"].get<std::uint64_t>(), sum);
  EXPECT_TRUE(doc["fits"].is_null());
  EXPECT_EQ(doc["profile"], "engine");
  EXPECT_EQ(doc["dtype"], "fp32");
}

TEST(CliMemory, PublishedArchitectureOnAClusterProfile) {
  const CliRun run = runCli(
      {"memory", "--model", "llama3-8b", "--seq", "8192", "--batch", "2", "--dp", "8", "--zero",
       "3", "--recompute", "selective", "--dtype", "bf16", "--profile", "fsdp", "--json"},
      cleanConfig("llama"));
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const auto doc = parseSingleDocument(run);
  EXPECT_EQ(doc["params"], 8'030'261'248);
  EXPECT_EQ(doc["recompute"], "selective");
  EXPECT_EQ(doc["attention"], "flash");
  // Sharded states are 16 bytes/param over 8 ranks; activations dominate.
  EXPECT_EQ(doc["breakdown"]["optimizer"].get<std::uint64_t>() / 1000,
            8ull * 8'030'261'248 / 8 / 1000);
  EXPECT_GT(doc["breakdown"]["activations"].get<std::uint64_t>(),
            doc["breakdown"]["optimizer"].get<std::uint64_t>());
}

TEST(CliMemory, GpuMemoryTurnsItIntoACheckThatCanSayNo) {
  const auto env = cleanConfig("check");
  const CliRun fits = runCli({"memory", "--model", "small", "--gpu-memory", "80", "--json"}, env);
  ASSERT_EQ(fits.exitCode, 0) << fits.err;
  EXPECT_EQ(parseSingleDocument(fits)["fits"], true);
  EXPECT_EQ(parseSingleDocument(fits)["gpu_memory_bytes"], 80ull << 30);

  const CliRun tight =
      runCli({"memory", "--model", "small", "--gpu-memory", "0.01", "--json"}, env);
  EXPECT_EQ(tight.exitCode, 3);
  EXPECT_EQ(parseSingleDocument(tight)["fits"], false);
}

TEST(CliMemory, FullRecomputeKeepsLessThanNone) {
  const auto env = cleanConfig("policies");
  const auto total = [&env](const char* policy) {
    const CliRun run = runCli({"memory", "--model", "small", "--recompute", policy, "--json"}, env);
    EXPECT_EQ(run.exitCode, 0) << run.err;
    return parseSingleDocument(run)["breakdown"]["activations"].get<std::uint64_t>();
  };
  EXPECT_LT(total("full"), total("selective"));
  EXPECT_LT(total("selective"), total("none"));
}

TEST(CliMemory, BadValuesAreNamedWithExitCode2) {
  const auto env = cleanConfig("bad");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--profile", "colossal"}, "'colossal'"},
      {{"--recompute", "layers:x"}, "'layers:x'"},
      {{"--recompute", "layers:9"}, "layers:9"},
      {{"--gpu-memory", "lots"}, "'lots'"},
      {{"--zero", "5"}, "--zero"},
      {{"--tp", "3"}, "--tp: 3"},
      {{"--model", "gpt5"}, "'gpt5'"},
      {{"--dtype", "fp8"}, "'fp8'"},
      {{"--heads", "5"}, "heads"},
      {{"--runtime", "fast"}, "'fast'"},
      {{"--runtime", "tuned,-wings"}, "'wings'"},
      {{"--profile", "megatron", "--runtime", "stock"}, "--runtime: 'stock'"},
  };
  for (const auto& [args, needle] : cases) {
    std::vector<std::string> argv{"memory", "--model", "tiny"};
    argv.insert(argv.end(), args.begin(), args.end());
    const CliRun run = runCli(argv, env);
    EXPECT_EQ(run.exitCode, 2) << args.front();
    EXPECT_NE(run.err.find(needle), std::string::npos) << run.err;
    EXPECT_TRUE(run.out.empty()) << args.front();
  }
}

TEST(CliMemory, TheEngineProfilePredictsRunsDefaultRuntimeUnlessToldOtherwise) {
  // `trainbench run` trains on the tuned runtime, whose flat gradient buffers
  // live through the whole step; the stock one's gradients are born in
  // backward. The prediction names the runtime it describes.
  const auto env = cleanConfig("runtime");
  const auto predict = [&env](std::vector<std::string> extra) {
    std::vector<std::string> argv{"memory", "--model", "small", "--json"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    const CliRun run = runCli(argv, env);
    EXPECT_EQ(run.exitCode, 0) << run.err;
    return parseSingleDocument(run);
  };
  const auto byDefault = predict({});
  const auto tuned = predict({"--runtime", "tuned"});
  const auto stock = predict({"--runtime", "stock"});
  const auto noFlatGradients = predict({"--runtime", "tuned,-flat-grads,-matmul"});
  EXPECT_EQ(byDefault["runtime"], "tuned");
  EXPECT_EQ(stock["runtime"], "stock");
  EXPECT_EQ(noFlatGradients["runtime"], "tuned,-matmul,-flat-grads");
  EXPECT_EQ(byDefault["total_bytes"], tuned["total_bytes"]);
  EXPECT_GT(tuned["total_bytes"].get<std::uint64_t>(), stock["total_bytes"].get<std::uint64_t>());
  EXPECT_LT(noFlatGradients["total_bytes"].get<std::uint64_t>(),
            tuned["total_bytes"].get<std::uint64_t>());
  const CliRun cluster = runCli({"memory", "--model", "small", "--profile", "fsdp", "--json"}, env);
  ASSERT_EQ(cluster.exitCode, 0) << cluster.err;
  EXPECT_TRUE(parseSingleDocument(cluster)["runtime"].is_null());
}

TEST(CliMemory, StoredCalibrationIsAppliedAndCanBeIgnored) {
  const auto env = cleanConfig("calibrated");
  const auto file =
      std::filesystem::path(env.at("XDG_CONFIG_HOME")) / "trainbench" / "memory-calibration.json";
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file) << R"({"format": 1, "profiles": {"engine": {"scale": 2.0,
                          "offset_bytes": 100, "points": 3}}})";
  const CliRun raw = runCli({"memory", "--no-calibration", "--json"}, env);
  const CliRun calibrated = runCli({"memory", "--json"}, env);
  ASSERT_EQ(raw.exitCode, 0) << raw.err;
  ASSERT_EQ(calibrated.exitCode, 0) << calibrated.err;
  const auto rawTotal = parseSingleDocument(raw)["total_bytes"].get<std::uint64_t>();
  const auto doc = parseSingleDocument(calibrated);
  EXPECT_EQ(doc["total_bytes"].get<std::uint64_t>(), 2 * rawTotal + 100);
  EXPECT_EQ(doc["calibration"]["scale"], 2.0);
  EXPECT_TRUE(parseSingleDocument(raw)["calibration"].is_null());
}

TEST(CliMemory, TextOutputShowsEveryTerm) {
  const CliRun run = runCli({"memory", "--model", "small"}, cleanConfig("text"));
  ASSERT_EQ(run.exitCode, 0) << run.err;
  for (const char* term :
       {"weights", "gradients", "optimizer", "activations", "logits", "overhead", "peak"}) {
    EXPECT_NE(run.out.find(term), std::string::npos) << term;
  }
}

}  // namespace
}  // namespace tb::cli::test
