// `trainbench plan` end to end: the JSON fields of the contract, the curve,
// and a budget nothing fits in answered with exit 3 and the smallest budget.
#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

#include "cli_runner.hpp"

namespace tb::cli::test {
namespace {

std::map<std::string, std::string> cleanConfig() {
  const auto dir =
      std::filesystem::temp_directory_path() / ("tb-cli-plan-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return {{"XDG_CONFIG_HOME", dir.string()}};
}

nlohmann::json planFor(const std::string& gib, int expectedExit) {
  const CliRun run =
      runCli({"plan", "--model", "small", "--gpu-memory", gib, "--json"}, cleanConfig());
  EXPECT_EQ(run.exitCode, expectedExit) << run.err;
  return parseSingleDocument(run);
}

TEST(CliPlan, JsonHasTheContractFieldsAndTheWholeCurve) {
  const auto doc = planFor("80", 0);
  ASSERT_TRUE(doc.is_object());
  for (const char* field : {"policy", "recompute_layers", "predicted_peak_bytes", "budget_bytes",
                            "time_overhead_ratio", "curve"}) {
    EXPECT_TRUE(doc.contains(field)) << field;
  }
  EXPECT_EQ(doc["policy"], "none");
  EXPECT_TRUE(doc["next_cheaper"].is_null());  // nothing is cheaper than none
  EXPECT_EQ(doc["recompute_layers"], 0);
  EXPECT_EQ(doc["time_overhead_ratio"], 0.0);
  EXPECT_EQ(doc["budget_bytes"], 80ull << 30);
  const auto& curve = doc["curve"];
  ASSERT_EQ(curve.size(), 7u);  // small has 6 blocks: k = 0..6
  for (std::size_t k = 0; k < curve.size(); ++k) {
    EXPECT_EQ(curve[k]["k"], k);
    EXPECT_TRUE(curve[k].contains("peak_bytes"));
    EXPECT_TRUE(curve[k].contains("time_ratio"));
  }
  EXPECT_GT(curve[0]["peak_bytes"].get<std::uint64_t>(),
            curve[6]["peak_bytes"].get<std::uint64_t>());
}

TEST(CliPlan, ABudgetBetweenFullAndNoneRecomputesSomeLayers) {
  const auto probe = planFor("80", 0)["curve"];
  const double none = probe[0]["peak_bytes"].get<double>();
  const double full = probe[6]["peak_bytes"].get<double>();
  const double gib = (none + full) / 2 / 0.95 / (1024.0 * 1024.0 * 1024.0);
  const auto doc = planFor(std::to_string(gib), 0);
  EXPECT_NE(doc["policy"], "none");
  EXPECT_GT(doc["time_overhead_ratio"].get<double>(), 0.0);
  EXPECT_LE(doc["predicted_peak_bytes"].get<double>(), 0.95 * doc["budget_bytes"].get<double>());
  // The candidate just cheaper in time did not fit.
  ASSERT_TRUE(doc["next_cheaper"].is_object());
  EXPECT_LT(doc["next_cheaper"]["time_ratio"].get<double>(),
            1.0 + doc["time_overhead_ratio"].get<double>());
  EXPECT_GT(doc["next_cheaper"]["peak_bytes"].get<double>(),
            0.95 * doc["budget_bytes"].get<double>());
}

TEST(CliPlan, NothingFitsIsExit3WithTheSmallestBudget) {
  const CliRun run =
      runCli({"plan", "--model", "small", "--gpu-memory", "0.001", "--json"}, cleanConfig());
  EXPECT_EQ(run.exitCode, 3);
  const auto doc = parseSingleDocument(run);
  EXPECT_EQ(doc["fits"], false);
  EXPECT_TRUE(doc["policy"].is_null());
  const auto smallest = doc["smallest_budget_bytes"].get<std::uint64_t>();
  EXPECT_GT(smallest, doc["budget_bytes"].get<std::uint64_t>());
  EXPECT_NE(run.err.find(std::to_string(smallest) + " bytes"), std::string::npos) << run.err;
  // And that budget is enough.
  const double gib = static_cast<double>(smallest) / (1024.0 * 1024.0 * 1024.0) * 1.0001;
  EXPECT_EQ(planFor(std::to_string(gib), 0)["fits"], true);
}

TEST(CliPlan, GpuMemoryIsRequired) {
  const CliRun run = runCli({"plan", "--model", "small"}, cleanConfig());
  EXPECT_EQ(run.exitCode, 2);
  EXPECT_NE(run.err.find("--gpu-memory"), std::string::npos);
}

TEST(CliPlan, Llama3EightBOnAnEightyGigabyteCard) {
  const CliRun run =
      runCli({"plan", "--model", "llama3-8b", "--seq", "8192", "--batch", "2", "--dp", "8",
              "--zero", "3", "--profile", "fsdp", "--gpu-memory", "80", "--json"},
             cleanConfig());
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const auto doc = parseSingleDocument(run);
  EXPECT_NE(doc["policy"], "none");
  EXPECT_EQ(doc["curve"].size(), 33u);
}

TEST(CliPlan, TextOutputNamesTheRecommendation) {
  const CliRun run = runCli({"plan", "--model", "small", "--gpu-memory", "80"}, cleanConfig());
  ASSERT_EQ(run.exitCode, 0) << run.err;
  EXPECT_NE(run.out.find("recommended: --recompute none"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("selective"), std::string::npos);
}

// The help line of --gpu-memory in plan and memory, where the option sits.
std::string gpuMemoryHelp(const std::string& command) {
  const CliRun help = runCli({command, "--help"}, cleanConfig());
  EXPECT_EQ(help.exitCode, 0) << help.err;
  const std::size_t at = help.out.find("--gpu-memory");
  return at == std::string::npos ? std::string()
                                 : help.out.substr(at, help.out.find('\n', at) - at);
}

TEST(CliPlan, HelpSaysTheBudgetIsRequiredAsTheCommandDoes) {
  const std::string planHelp = gpuMemoryHelp("plan");
  EXPECT_NE(planHelp.find("(required)"), std::string::npos) << planHelp;
  const CliRun withoutBudget = runCli({"plan", "--model", "small"}, cleanConfig());
  EXPECT_EQ(withoutBudget.exitCode, 2);
  EXPECT_NE(withoutBudget.err.find("--gpu-memory"), std::string::npos) << withoutBudget.err;
  // memory checks against the budget only when it is given: no default size.
  const std::string memoryHelp = gpuMemoryHelp("memory");
  EXPECT_NE(memoryHelp.find("(default: no check)"), std::string::npos) << memoryHelp;
  const CliRun memory = runCli({"memory", "--model", "small", "--json"}, cleanConfig());
  EXPECT_EQ(memory.exitCode, 0) << memory.err;
  EXPECT_TRUE(parseSingleDocument(memory)["fits"].is_null()) << memory.out;
}

}  // namespace
}  // namespace tb::cli::test
