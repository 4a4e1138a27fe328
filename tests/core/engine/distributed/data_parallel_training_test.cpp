// Data-parallel training end to end, through the real binary and its
// launcher (`trainbench run --nproc-per-node`): two ranks with micro-batch b,
// each on its half of the global batch, must end where one rank with 2b on
// all of it ends (DDP's own test, _test_DDP_niter), for every way the step
// can run; one rank through the distributed path must be bit for bit the
// plain run; and the run directory must say what ran.
//
// Tolerance: after 5 AdamW steps in float32, relative 1e-4 of each tensor's
// largest value. The two runs differ only in the order of the sums (a
// per-rank mean then the all-reduce, against one mean over all rows),
// around 1e-7 relative per step; AdamW divides each step by sqrt(v), which
// lifts that on the entries whose gradients are near zero, and the runs
// agree to about 1e-5 (measured: the worst tensor of each case is printed).
// A real defect (a bucket not summed, a rank on the wrong rows, a missing
// division) is off by the whole update, 1e-3 relative and up.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <iostream>
#include <thread>
#include <utility>
#include <vector>

#include "trainbench_child.hpp"
#include "training/checkpoint.hpp"

namespace {

constexpr double kDataParallelTrainingRelTolerance = 1e-4;

constexpr const char* kPrefix = "tb_data_parallel_";

tb::ProcessResult trainbench(std::vector<std::string> arguments) {
  return tb::engine::test::runTrainbench(std::move(arguments), kPrefix, std::chrono::seconds(180));
}

std::string scratch(const std::string& name) {
  return tb::engine::test::scratchDirectory(kPrefix, name);
}

/// Trains `steps` steps of tiny with `flags` and returns its checkpoint.
tb::engine::Checkpoint train(const std::string& name, int processes, int batch,
                             std::vector<std::string> flags) {
  const std::string dir = scratch(name);
  std::vector<std::string> arguments{"run",
                                     "--model",
                                     "tiny",
                                     "--steps",
                                     "5",
                                     "--save-every",
                                     "5",
                                     "--threads",
                                     "1",
                                     "--batch",
                                     std::to_string(batch),
                                     "--run-dir",
                                     dir,
                                     "--json"};
  if (processes > 0) {
    arguments.insert(arguments.end(), {"--nproc-per-node", std::to_string(processes),
                                       "--master-port", "0", "--dist-timeout", "60"});
  }
  arguments.insert(arguments.end(), flags.begin(), flags.end());
  const auto result = trainbench(arguments);
  EXPECT_EQ(result.exitCode, 0) << result.standardError;
  auto checkpoint = tb::engine::loadCheckpoint(dir);
  EXPECT_TRUE(checkpoint) << (checkpoint ? "" : checkpoint.error().message);
  return checkpoint ? *checkpoint : tb::engine::Checkpoint{};
}

/// The largest relative difference over all tensors (weights and moments).
double worstRelativeDifference(const tb::engine::Checkpoint& a, const tb::engine::Checkpoint& b,
                               std::string& worstName) {
  double worst = 0.0;
  EXPECT_EQ(a.tensors.size(), b.tensors.size());
  for (const auto& tensor : a.tensors) {
    const at::Tensor other = tb::engine::findTensor(b, tensor.name);
    if (!other.defined()) {
      ADD_FAILURE() << "missing " << tensor.name;
      continue;
    }
    const double scale = std::max(tensor.tensor.abs().max().item<double>(), 1e-30);
    const double difference = (tensor.tensor - other).abs().max().item<double>() / scale;
    if (difference > worst) {
      worst = difference;
      worstName = tensor.name;
    }
  }
  return worst;
}

void expectTwoRanksEqualOneRankOfTheGlobalBatch(const std::string& name,
                                                const std::vector<std::string>& flags) {
  const auto one = train(name + "_one", 0, 4, flags);
  const auto two = train(name + "_two", 2, 2, flags);
  ASSERT_EQ(one.step, 5);
  ASSERT_EQ(two.step, 5);
  std::string worstName;
  const double worst = worstRelativeDifference(one, two, worstName);
  ::testing::Test::RecordProperty("worst_relative_difference", std::to_string(worst));
  std::cout << name << ": worst relative difference " << worst << " (" << worstName << ")\n";
  EXPECT_LT(worst, kDataParallelTrainingRelTolerance) << worstName;
}

TEST(DataParallelTraining, TunedRuntimeWithSmallBucketsMatchesOneRank) {
  // 0.05 MiB buckets: tiny's 0.6 MiB of gradients travel in about a dozen.
  expectTwoRanksEqualOneRankOfTheGlobalBatch("tuned", {"--bucket-mb", "0.05"});
}

TEST(DataParallelTraining, StockRuntimeCopiesGradientsInAndOutAndMatchesOneRank) {
  expectTwoRanksEqualOneRankOfTheGlobalBatch("stock",
                                             {"--runtime", "stock", "--bucket-mb", "0.05"});
}

TEST(DataParallelTraining, CompiledStepWithFullRecomputeAndOneBucketMatchesOneRank) {
  expectTwoRanksEqualOneRankOfTheGlobalBatch(
      "compiled", {"--compile", "on", "--recompute", "full", "--bucket-mb", "0"});
}

TEST(DataParallelTraining, OneRankThroughTheDistributedPathIsTheSameRunBitForBit) {
  // One matrix-product path for both: each start-up probe may pick another.
  const auto plain = train("plain", 0, 2, {"--runtime", "tuned,-matmul"});
  const auto distributed =
      train("world1", 1, 2, {"--runtime", "tuned,-matmul", "--bucket-mb", "0.05"});
  ASSERT_EQ(plain.tensors.size(), distributed.tensors.size());
  for (const auto& tensor : plain.tensors) {
    EXPECT_TRUE(at::equal(tensor.tensor, tb::engine::findTensor(distributed, tensor.name)))
        << tensor.name;
  }
}

TEST(DataParallelTraining, AResumedRunContinuesTheSameTrajectoryAtTheSameWorldSize) {
  // One matrix-product path for all three runs: the start-up probe of each
  // may pick another, and the paths round differently.
  const std::vector<std::string> pinned{"--runtime", "tuned,-matmul"};
  auto flags = pinned;
  flags.insert(flags.end(), {"--steps", "8", "--save-every", "8"});
  const auto whole = train("resume_whole", 2, 2, flags);
  const std::string first = scratch("resume_first");
  auto run =
      trainbench({"run",       "--model",          "tiny", "--steps",       "4", "--save-every",
                  "4",         "--threads",        "1",    "--batch",       "2", "--run-dir",
                  first,       "--nproc-per-node", "2",    "--master-port", "0", "--json",
                  "--runtime", "tuned,-matmul"});
  ASSERT_EQ(run.exitCode, 0) << run.standardError;
  const std::string second = scratch("resume_second");
  run = trainbench({"run",  "--model",   "tiny",      "--steps",          "8", "--save-every",
                    "8",    "--threads", "1",         "--batch",          "2", "--run-dir",
                    second, "--resume",  first,       "--nproc-per-node", "2", "--master-port",
                    "0",    "--json",    "--runtime", "tuned,-matmul"});
  ASSERT_EQ(run.exitCode, 0) << run.standardError;
  auto resumed = tb::engine::loadCheckpoint(second);
  ASSERT_TRUE(resumed) << resumed.error().message;
  ASSERT_EQ(resumed->step, 8);
  for (const auto& tensor : whole.tensors) {
    EXPECT_TRUE(at::equal(tensor.tensor, tb::engine::findTensor(*resumed, tensor.name)))
        << tensor.name;
  }
  // Another world size would train another global batch: refused, naming both.
  const auto refused =
      trainbench({"run", "--model", "tiny", "--steps", "8", "--threads", "1", "--batch", "2",
                  "--run-dir", scratch("resume_refused"), "--resume", first, "--json"});
  EXPECT_EQ(refused.exitCode, 2) << refused.standardError;
  EXPECT_NE(refused.standardError.find("trained by 2 process(es); this run has 1"),
            std::string::npos)
      << refused.standardError;
}

/// ZeRO-1 against whole moments at the same world size: every update is
/// element-wise, so a rank updating its shard computes what the whole-buffer
/// update computes there, and the gathered weights are copies. Bit for bit.
void expectZeroOneIsZeroZero(const std::string& name, int processes,
                             const std::vector<std::string>& flags) {
  auto sharded = flags;
  sharded.insert(sharded.end(), {"--zero", "1"});
  const auto whole = train(name + "_zero0", processes, 2, flags);
  const auto shards = train(name + "_zero1", processes, 2, sharded);
  ASSERT_EQ(whole.step, 5);
  ASSERT_EQ(shards.step, 5);
  ASSERT_EQ(whole.tensors.size(), shards.tensors.size());
  for (const auto& tensor : whole.tensors) {
    EXPECT_TRUE(at::equal(tensor.tensor, tb::engine::findTensor(shards, tensor.name)))
        << tensor.name;
  }
}

TEST(DataParallelTraining, ZeroOneShardsTheMomentsAndTrainsTheSameWeightsAsZeroZero) {
  expectZeroOneIsZeroZero("zero_tuned", 2, {"--runtime", "tuned,-matmul", "--bucket-mb", "0.05"});
}

TEST(DataParallelTraining, ZeroOneUnderTheCompiledStepsFusedUpdateIsZeroZero) {
  expectZeroOneIsZeroZero("zero_compiled", 2,
                          {"--runtime", "tuned,-matmul", "--compile", "on", "--bucket-mb", "0"});
}

TEST(DataParallelTraining, ZeroOneOverThreeRanksPadsTheLastShard) {
  // tiny has 164160 parameters, three equal shards; with one more token in
  // its vocabulary of 512 (two more rows of dim 64) it has 164288, and the
  // last of three shards is padded by one element.
  expectZeroOneIsZeroZero("zero_three", 3, {"--runtime", "tuned,-matmul", "--vocab", "513"});
}

TEST(DataParallelTraining, ZeroOneCheckpointsGatherTheMomentsAndResumeTheSameTrajectory) {
  const std::vector<std::string> common{"--threads",
                                        "1",
                                        "--batch",
                                        "2",
                                        "--nproc-per-node",
                                        "2",
                                        "--master-port",
                                        "0",
                                        "--json",
                                        "--runtime",
                                        "tuned,-matmul",
                                        "--zero",
                                        "1"};
  const auto withCommon = [&common](std::vector<std::string> arguments) {
    arguments.insert(arguments.end(), common.begin(), common.end());
    return arguments;
  };
  const std::string wholeDir = scratch("zero_resume_whole");
  auto run = trainbench(withCommon(
      {"run", "--model", "tiny", "--steps", "8", "--save-every", "8", "--run-dir", wholeDir}));
  ASSERT_EQ(run.exitCode, 0) << run.standardError;
  const std::string first = scratch("zero_resume_first");
  run = trainbench(withCommon(
      {"run", "--model", "tiny", "--steps", "4", "--save-every", "4", "--run-dir", first}));
  ASSERT_EQ(run.exitCode, 0) << run.standardError;
  const std::string second = scratch("zero_resume_second");
  run = trainbench(withCommon({"run", "--model", "tiny", "--steps", "8", "--save-every", "8",
                               "--run-dir", second, "--resume", first}));
  ASSERT_EQ(run.exitCode, 0) << run.standardError;
  auto whole = tb::engine::loadCheckpoint(wholeDir);
  auto resumed = tb::engine::loadCheckpoint(second);
  ASSERT_TRUE(whole && resumed);
  ASSERT_EQ(resumed->step, 8);
  ASSERT_EQ(whole->tensors.size(), resumed->tensors.size());
  for (const auto& tensor : whole->tensors) {
    EXPECT_TRUE(at::equal(tensor.tensor, tb::engine::findTensor(*resumed, tensor.name)))
        << tensor.name;
  }
  // The checkpoint holds every moment, gathered from both shards: the same
  // as a run that never sharded them.
  const auto unsharded = train("zero_resume_unsharded", 2, 2,
                               {"--runtime", "tuned,-matmul", "--steps", "8", "--save-every", "8"});
  for (const auto& tensor : unsharded.tensors) {
    EXPECT_TRUE(at::equal(tensor.tensor, tb::engine::findTensor(*whole, tensor.name)))
        << tensor.name;
  }
}

nlohmann::json readJson(const std::filesystem::path& file) {
  std::ifstream in(file);
  return nlohmann::json::parse(in, nullptr, false);
}

TEST(DataParallelTraining, TheRunDirectorySaysWhatRanAndEachRankKeepsItsOwnRecord) {
  const std::string dir = scratch("records");
  const std::string stream = scratch("records-stream.jsonl");
  const auto result =
      trainbench({"run",      "--model",     "tiny", "--steps",          "3", "--threads",
                  "1",        "--run-dir",   dir,    "--nproc-per-node", "2", "--master-port",
                  "0",        "--bucket-mb", "0.1",  "--zero",           "1", "--json",
                  "--events", stream});
  ASSERT_EQ(result.exitCode, 0) << result.standardError;
  const auto summary = nlohmann::json::parse(result.standardOutput);
  EXPECT_EQ(summary["status"], "completed");
  EXPECT_EQ(summary["world_size"], 2);
  ASSERT_EQ(summary["ranks"].size(), 2U);
  for (std::size_t rank = 0; rank < 2; ++rank) {
    EXPECT_EQ(summary["ranks"][rank]["rank"], rank);
    EXPECT_EQ(summary["ranks"][rank]["status"], "completed");
    EXPECT_GT(summary["ranks"][rank]["peak_bytes"].get<double>(), 0.0);
  }
  EXPECT_EQ(readJson(std::filesystem::path(dir) / "summary.json"), summary);

  const auto config = readJson(std::filesystem::path(dir) / "config.json");
  EXPECT_EQ(config["world_size"], 2);
  EXPECT_EQ(config["rank"], 0);
  EXPECT_DOUBLE_EQ(config["bucket_mb"].get<double>(), 0.1);
  EXPECT_EQ(config["zero"], 1);
  const auto rankOne = readJson(std::filesystem::path(dir) / "ranks" / "1" / "summary.json");
  EXPECT_EQ(rankOne["rank"], 1);
  EXPECT_EQ(rankOne["status"], "completed");
  EXPECT_DOUBLE_EQ(rankOne["loss_last"].get<double>(), summary["loss_last"].get<double>())
      << "every rank reports the same global loss";
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(dir) / "ranks" / "1" / "events.jsonl"));

  // Tokens per second are the group's: both ranks' rows over the step time.
  const double tokensPerStep =
      summary["tokens_per_s"].get<double>() * summary["step_time_s"].get<double>();
  EXPECT_NEAR(tokensPerStep, 2.0 * 4 * 64, 1.0) << "2 ranks x batch 4 x seq 64";
  // So is MFU's peak: both ranks' probed matrix-product rate, not rank 0's.
  const double groupPeak = 2.0 * summary["matmul_gflops"].get<double>() * 1e9;
  EXPECT_NEAR(
      summary["mfu"].get<double>(),
      summary["tokens_per_s"].get<double>() * summary["flops_per_token"].get<double>() / groupPeak,
      1e-9);

  // The launcher's event stream: rank 0's events, and every rank's own steps
  // as rank_step events carrying that rank's memory (the Runs page's gauge).
  std::ifstream lines(stream);
  std::string line;
  std::array<std::vector<nlohmann::json>, 2> rankSteps;
  std::vector<nlohmann::json> steps;
  while (std::getline(lines, line)) {
    const auto event = nlohmann::json::parse(line);
    if (event["event"] == "step") steps.push_back(event);
    if (event["event"] == "rank_step")
      rankSteps.at(event["rank"].get<std::size_t>()).push_back(event);
  }
  ASSERT_EQ(steps.size(), 3U);
  for (std::size_t rank = 0; rank < 2; ++rank) {
    ASSERT_EQ(rankSteps[rank].size(), 3U) << "rank " << rank;
    for (std::size_t i = 0; i < 3; ++i) {
      EXPECT_EQ(rankSteps[rank][i]["step"], i + 1);
      EXPECT_GT(rankSteps[rank][i]["live_bytes"].get<double>(), 0.0);
      EXPECT_GE(rankSteps[rank][i]["peak_bytes"], rankSteps[rank][i]["live_bytes"]);
      // The step's CPU time, every thread of the rank: some, and no more
      // than every core of the machine busy for the whole step.
      const double cpu = rankSteps[rank][i]["cpu_s"].get<double>();
      EXPECT_GT(cpu, 0.0);
      EXPECT_LE(cpu, rankSteps[rank][i]["step_time_s"].get<double>() *
                             std::max(1U, std::thread::hardware_concurrency()) +
                         0.01);
      EXPECT_TRUE(rankSteps[rank][i].contains("comm_wait_s"));
    }
    EXPECT_LE(rankSteps[rank].back()["peak_bytes"].get<double>(),
              summary["ranks"][rank]["peak_bytes"].get<double>());
  }
  // Rank 0's rank_step is its step event under another name.
  EXPECT_EQ(rankSteps[0][1]["live_bytes"], steps[1]["live_bytes"]);
  std::filesystem::remove(stream);
}

}  // namespace
