// The proof that the memory predictor describes this engine: real training
// runs (two steps each, in this process) over shapes x sequence x batch x
// every recompute policy, plain and compiled (--compile on), their
// tracking-allocator peak against core/memory's `engine` profile (median
// error <= 3 %, worst <= 8 %), and the planner on real runs: at a budget
// between the full-recompute and the no-recompute peak, auto completes
// inside it and none is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>
#include <unistd.h>

#include "training/recompute_choice.hpp"
#include "tb/engine/trainer.hpp"
#include "tb/memory/planner.hpp"
#include "tb/memory/predictor.hpp"
#include "runtime/tracking_allocator.hpp"

namespace {

using tb::engine::RecomputeMode;
using tb::engine::RecomputePolicy;
using tb::runs::RunState;

tb::engine::ModelConfig shape(std::int64_t dim, std::int64_t layers, std::int64_t heads,
                              std::int64_t kvHeads, std::int64_t ffn, std::int64_t seq,
                              std::int64_t batch, std::int64_t vocab) {
  tb::engine::ModelConfig model;
  model.name = "sweep";
  model.dim = dim;
  model.layers = layers;
  model.heads = heads;
  model.kvHeads = kvHeads;
  model.ffn = ffn;
  model.seq = seq;
  model.batch = batch;
  model.vocab = vocab;
  return model;
}

std::uint64_t predictedPeak(const tb::engine::ModelConfig& model, const RecomputePolicy& policy,
                            bool compile = false) {
  tb::memory::PredictionInput input;
  input.model = model;
  input.recompute = tb::engine::toMemoryPolicy(policy);
  input.compiledStep = compile;
  // train() runs the engine's default, tuned runtime.
  input.flatGradients = true;
  input.gqaInPlace = true;
  const auto prediction = tb::memory::predictMemory(input);
  EXPECT_TRUE(prediction) << prediction.error().message;
  return prediction ? prediction->totalBytes : 0;
}

struct Outcome {
  tb::engine::RunSummary summary;
  std::uint64_t peakBytes = 0;  ///< above what was live before the run
};

Outcome train(const tb::engine::ModelConfig& model, const RecomputePolicy& policy,
              std::uint64_t budget = 0, bool compile = false) {
  static int runs = 0;
  tb::engine::RunConfig config;
  config.model = model;
  config.steps = 2;
  config.threads = 1;
  config.recompute = policy;
  config.memoryBudgetBytes = budget;
  config.compile = compile;
  // The pid too: ctest runs the plain and compiled sweeps in two processes at
  // once, and one's cleanup must not remove the other's run directory.
  config.runDir =
      std::filesystem::temp_directory_path() /
      ("tb_recompute_memory_" + std::to_string(::getpid()) + "_" + std::to_string(++runs));
  std::filesystem::remove_all(config.runDir);
  const std::uint64_t before = tb::engine::TrackingCpuAllocator::install().liveBytes();
  auto summary = tb::engine::runTraining(config);
  EXPECT_TRUE(summary) << summary.error().message;
  std::filesystem::remove_all(config.runDir);
  if (!summary) return {};
  return {*summary, summary->peakBytes - std::min(before, summary->peakBytes)};
}

// Every shape x policy of the sweep, trained and predicted; `compile` runs
// and predicts the compiled step (CompilerOpt) instead of the plain one.
void expectPredictedPeaksWithinBounds(bool compile) {
  const std::vector<tb::engine::ModelConfig> shapes{
      shape(64, 2, 4, 2, 192, 64, 4, 512),    // the tiny preset
      shape(96, 3, 6, 2, 256, 128, 2, 1024),  // GQA 3:1, longer sequence
      shape(128, 4, 4, 4, 320, 96, 3, 2048),  // multi-head, larger vocabulary
      shape(64, 4, 8, 2, 160, 192, 1, 256)};  // score-heavy: 8 heads x 192 positions
  const std::vector<RecomputePolicy> policies{
      {RecomputeMode::None, 0},
      {RecomputeMode::Selective, 0},
      {RecomputeMode::Full, 0},
      {RecomputeMode::Layers, 1},
      {RecomputeMode::Selective, 0, tb::model::kBlockRecomputeModules},
      {RecomputeMode::Layers, 1, tb::model::kNorms | tb::model::kMlpActivation},
      // The head module: every module, and behind full blocks.
      {RecomputeMode::Selective, 0, tb::model::kAllRecomputeModules},
      {RecomputeMode::Layers, 1, tb::model::kOutputHead}};
  std::vector<double> errors;
  for (const auto& model : shapes) {
    for (const auto& policy : policies) {
      const Outcome run = train(model, policy, 0, compile);
      ASSERT_EQ(run.summary.state, RunState::Completed) << run.summary.message;
      const std::uint64_t predicted = predictedPeak(model, policy, compile);
      const double error =
          std::abs(static_cast<double>(predicted) - static_cast<double>(run.peakBytes)) /
          static_cast<double>(run.peakBytes);
      std::printf(
          "%sd%lld L%lld s%lld b%lld %-30s measured %10llu predicted %10llu "
          "error %5.2f %%\n",
          compile ? "compiled " : "", static_cast<long long>(model.dim),
          static_cast<long long>(model.layers), static_cast<long long>(model.seq),
          static_cast<long long>(model.batch), tb::engine::toString(policy).c_str(),
          static_cast<unsigned long long>(run.peakBytes),
          static_cast<unsigned long long>(predicted), 100.0 * error);
      errors.push_back(error);
    }
  }
  std::sort(errors.begin(), errors.end());
  const double median = (errors[(errors.size() - 1) / 2] + errors[errors.size() / 2]) / 2.0;
  EXPECT_LE(median, 0.03);
  EXPECT_LE(errors.back(), 0.08);
}

TEST(RecomputeMemory, EngineProfilePredictsMeasuredPeaksOfRealRuns) {
  expectPredictedPeaksWithinBounds(false);
}

TEST(RecomputeMemory, EngineProfilePredictsMeasuredPeaksOfCompiledRuns) {
  expectPredictedPeaksWithinBounds(true);
}

TEST(RecomputeMemory, RecomputationLowersTheMeasuredPeak) {
  const auto model = shape(96, 3, 6, 2, 256, 128, 2, 1024);
  const std::uint64_t none = train(model, {RecomputeMode::None, 0}).peakBytes;
  const std::uint64_t selective = train(model, {RecomputeMode::Selective, 0}).peakBytes;
  const std::uint64_t full = train(model, {RecomputeMode::Full, 0}).peakBytes;
  EXPECT_LT(selective, none);
  EXPECT_LT(full, selective);
}

TEST(RecomputeMemory, AutoRunsInsideABudgetThatNoneCannotRunIn) {
  const auto model = shape(96, 4, 6, 2, 256, 128, 2, 1024);
  const std::uint64_t none = predictedPeak(model, {RecomputeMode::None, 0});
  const std::uint64_t full = predictedPeak(model, {RecomputeMode::Full, 0});
  const std::uint64_t budget = full + (none - full) / 2;

  const Outcome automatic = train(model, {RecomputeMode::Auto, 0}, budget);
  EXPECT_EQ(automatic.summary.state, RunState::Completed) << automatic.summary.message;
  EXPECT_NE(automatic.summary.recompute, "none");
  EXPECT_NE(automatic.summary.recompute, "auto");
  EXPECT_LE(automatic.summary.peakBytes, budget);

  const Outcome keepAll = train(model, {RecomputeMode::None, 0}, budget);
  EXPECT_EQ(keepAll.summary.state, RunState::Oom);
  EXPECT_NE(keepAll.summary.message.find("memory budget"), std::string::npos)
      << keepAll.summary.message;
}

TEST(RecomputeMemory, TheNextCheaperPlanIsRefusedUnderTheBudgetAutoFits) {
  // The planner's choice runs inside the budget; the candidate just below it
  // in step time, which the planner passed over, runs out of the same budget.
  const auto model = shape(96, 4, 6, 2, 256, 128, 2, 1024);
  const std::uint64_t none = predictedPeak(model, {RecomputeMode::None, 0});
  const std::uint64_t full = predictedPeak(model, {RecomputeMode::Full, 0});
  const std::uint64_t budget = full + (none - full) * 2 / 5;
  tb::memory::PredictionInput input;
  input.model = model;
  input.flatGradients = true;  // train() runs the tuned runtime
  input.gqaInPlace = true;
  const auto plan = tb::memory::planRecompute(input, budget);
  ASSERT_TRUE(plan && plan->fits && plan->nextCheaper);
  // Past the budget itself, not only past its margin, or the allocator
  // would have no reason to refuse it.
  ASSERT_GT(static_cast<double>(plan->nextCheaperPoint.peakBytes),
            1.02 * static_cast<double>(budget))
      << tb::memory::toString(*plan->nextCheaper);

  const Outcome automatic = train(model, {RecomputeMode::Auto, 0}, budget);
  EXPECT_EQ(automatic.summary.state, RunState::Completed) << automatic.summary.message;
  EXPECT_EQ(automatic.summary.recompute, tb::memory::toString(plan->policy));
  EXPECT_LE(automatic.summary.peakBytes, budget);

  const RecomputePolicy cheaper = tb::engine::fromMemoryPolicy(*plan->nextCheaper);
  const Outcome refused = train(model, cheaper, budget);
  EXPECT_EQ(refused.summary.state, RunState::Oom) << tb::engine::toString(cheaper);
  EXPECT_NE(refused.summary.message.find("memory budget"), std::string::npos)
      << refused.summary.message;
}

}  // namespace
