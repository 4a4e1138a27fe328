// The step compiler: what it fuses on the CPU in float32, what falls back and
// why (CUDA, an odd head_dim, indivisible heads, flat gradients off), and the
// decoder built from its compiled ops against the reference ops on `tiny`:
// the same loss and parameter gradients within 1e-5 (fused_parity.hpp), and
// 50 training steps with --compile on and off following the same losses.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>

#include "fused/compiled_step.hpp"
#include "model/decoder.hpp"
#include "fused_parity.hpp"
#include "tb/engine/trainer.hpp"
#include "tb/model/model_config.hpp"

namespace {

using tb::engine::Decoder;
using tb::engine::FusionDecision;
using tb::engine::RunConfig;
using tb::engine::StepPlan;
using tb::engine::testing::relativeError;

RunConfig tinyConfig() {
  RunConfig config;
  config.model = *tb::model::findPreset("tiny");
  return config;
}

const FusionDecision& decision(const StepPlan& plan, const std::string& pattern) {
  const auto found = std::find_if(plan.decisions.begin(), plan.decisions.end(),
                                  [&](const FusionDecision& d) { return d.pattern == pattern; });
  if (found == plan.decisions.end()) throw std::runtime_error("no decision for " + pattern);
  return *found;
}

TEST(CompiledStep, DescribesEveryOperatorOfTheStep) {
  const auto model = tinyConfig().model;  // 2 layers
  const auto nodes = tb::engine::describeStep(model);
  EXPECT_EQ(nodes.size(), 1U + 20U * 2U + 6U);
  EXPECT_EQ(nodes.front().kind, "embedding");
  EXPECT_EQ(nodes.back().kind, "adamw");
  EXPECT_EQ(nodes[2].where, "layers.0.wq");
}

TEST(CompiledStep, FusesEveryPatternOnCpuFloat32) {
  const StepPlan plan = tb::engine::planCompiledStep(tinyConfig());
  for (const std::string pattern :
       {"rmsnorm", "rope(q,k)", "attention", "swiglu", "head+loss", "adamw+clip"}) {
    EXPECT_TRUE(plan.fuses(pattern)) << pattern << ": " << decision(plan, pattern).reason;
  }
  EXPECT_EQ(decision(plan, "rmsnorm").count, 5);  // two per block and the final norm
  EXPECT_EQ(decision(plan, "rope(q,k)").count, 4);
  EXPECT_EQ(decision(plan, "attention").count, 2);
  EXPECT_EQ(decision(plan, "head+loss").count, 1);
  // The output projection is inside head+loss; seven matrix products per block remain.
  EXPECT_EQ(decision(plan, "linear").count, 14);
  EXPECT_FALSE(decision(plan, "linear").fused);
}

TEST(CompiledStep, FallsBackOnCudaForWantOfKernels) {
  RunConfig config = tinyConfig();
  config.device = tb::engine::Device::Cuda;
  const StepPlan plan = tb::engine::planCompiledStep(config);
  for (const auto& d : plan.decisions) {
    EXPECT_FALSE(d.fused) << d.pattern;
    if (d.reason != "no fusion pattern") {
      EXPECT_EQ(d.reason, "no CUDA kernel yet") << d.pattern;
    }
  }
  EXPECT_EQ(decision(plan, "rmsnorm").op, "ops::rmsNorm");
}

TEST(CompiledStep, FallsBackOnAnOddHeadDim) {
  RunConfig config = tinyConfig();
  config.model.dim = 12;  // 4 heads of 3
  const StepPlan plan = tb::engine::planCompiledStep(config);
  EXPECT_FALSE(plan.fuses("rope(q,k)"));
  EXPECT_EQ(decision(plan, "rope(q,k)").reason, "head_dim 3 is odd");
  EXPECT_TRUE(plan.fuses("rmsnorm"));
}

TEST(CompiledStep, FallsBackOnHeadsNotDivisibleByKvHeads) {
  RunConfig config = tinyConfig();
  config.model.kvHeads = 3;
  const StepPlan plan = tb::engine::planCompiledStep(config);
  EXPECT_FALSE(plan.fuses("attention"));
  EXPECT_EQ(decision(plan, "attention").reason, "heads 4 not divisible by kv heads 3");
}

TEST(CompiledStep, FallsBackOnAdamWWithoutFlatGradients) {
  RunConfig config = tinyConfig();
  config.runtime.flatGradients = false;
  const StepPlan plan = tb::engine::planCompiledStep(config);
  EXPECT_FALSE(plan.fuses("adamw+clip"));
  EXPECT_NE(decision(plan, "adamw+clip").reason.find("flat gradients off"), std::string::npos);
  EXPECT_EQ(decision(plan, "adamw+clip").op, "clipGradientNorm + AdamW");
}

TEST(CompiledStep, ExplainsOneLinePerPattern) {
  RunConfig config = tinyConfig();
  config.runtime.flatGradients = false;
  const StepPlan plan = tb::engine::planCompiledStep(config);
  const std::string text = tb::engine::explain(plan);
  EXPECT_NE(text.find("fused    rmsnorm x5: fused::rmsNorm\n"), std::string::npos) << text;
  EXPECT_NE(text.find("fallback adamw+clip x1: clipGradientNorm + AdamW (flat gradients off:"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("plain    linear x14: "), std::string::npos) << text;
  EXPECT_EQ(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')),
            plan.decisions.size() + 1);
}

TEST(CompiledStep, DecoderMatchesReferenceLossAndGradientsOnTiny) {
  const RunConfig config = tinyConfig();
  const auto model = config.model;
  const StepPlan plan = tb::engine::planCompiledStep(config);
  const auto compiledOps =
      tb::engine::makeCompiledOps(plan, tb::engine::atenMatmulPath(), /*gqaInPlace=*/true);
  at::manual_seed(7);
  const at::Tensor rows = at::randint(model.vocab, {model.batch, model.seq + 1}, at::kLong);

  const auto lossAndGrads = [&](const tb::engine::DecoderOps& ops) {
    Decoder decoder(model, tb::engine::initialiseWeights(model, 11, at::kCPU), ops, at::kFloat);
    const at::Tensor loss = decoder.loss(rows);
    loss.backward();
    return std::make_pair(loss.item<double>(), tb::engine::namedParameters(decoder.weights()));
  };
  const auto [fusedLoss, fusedParams] = lossAndGrads(*compiledOps);
  const auto [referenceLoss, referenceParams] = lossAndGrads(tb::engine::referenceOps());
  EXPECT_NEAR(fusedLoss, referenceLoss, 1e-5 * referenceLoss);
  ASSERT_EQ(fusedParams.size(), referenceParams.size());
  for (std::size_t i = 0; i < fusedParams.size(); ++i) {
    EXPECT_LE(relativeError(fusedParams[i].tensor.grad(), referenceParams[i].tensor.grad()), 1e-5)
        << fusedParams[i].name;
  }
}

TEST(CompiledStep, FiftyStepsFollowTheSameLossesAsTheUncompiledStep) {
  const auto lossesWith = [](bool compile) {
    RunConfig config = tinyConfig();
    config.steps = 50;
    config.seed = 77;
    config.threads = 1;
    config.data.kind = tb::engine::DataKind::Synthetic;
    config.compile = compile;
    config.runDir = std::filesystem::temp_directory_path() /
                    (compile ? "tb_compiled_step_on" : "tb_compiled_step_off");
    std::filesystem::remove_all(config.runDir);
    auto summary = tb::engine::runTraining(config);
    EXPECT_TRUE(summary.ok()) << summary.error().message;
    std::filesystem::remove_all(config.runDir);
    return summary.ok() ? summary->losses : std::vector<double>{};
  };
  const std::vector<double> compiled = lossesWith(true);
  const std::vector<double> plain = lossesWith(false);
  ASSERT_EQ(compiled.size(), 50U);
  ASSERT_EQ(plain.size(), 50U);
  for (std::size_t step = 0; step < plain.size(); ++step) {
    EXPECT_LE(std::abs(compiled[step] - plain[step]) / std::abs(plain[step]), 1e-4)
        << "step " << step << ": " << compiled[step] << " against " << plain[step];
  }
  // The synthetic task is learnable: the run trained, not just repeated step 0.
  EXPECT_LT(plain.back(), plain.front());
}

}  // namespace
