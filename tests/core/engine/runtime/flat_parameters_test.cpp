// Flat parameter buffers against the per-tensor optimizer they replace: the
// same clipped AdamW trajectory over several steps (float32, rel <= 1e-6),
// gradients that autograd accumulates in place into the flat buffer, and
// optimizer state that checkpoints find under the same names. Their memory:
// the buffers are built without the per-tensor weights beside all four, and
// the plain update over them makes one buffer-sized temporary (the engine
// profile counts exactly that; docs/MEMORY.md).
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <map>
#include <string>

#include "tensor_compare.hpp"
#include "runtime/adamw.hpp"
#include "model/decoder.hpp"
#include "runtime/flat_parameters.hpp"
#include "tb/model/model_config.hpp"
#include "runtime/tracking_allocator.hpp"

namespace {

using tb::engine::test::relativeError;

using tb::engine::AdamW;
using tb::engine::DecoderWeights;
using tb::engine::FlatParameters;
using tb::engine::NamedTensor;

constexpr double kRuntimeFlatRelTolerance = 1e-6;
constexpr double kMaxNorm = 1.0;

tb::model::ModelConfig tinyModel() {
  tb::model::ModelConfig model = *tb::model::findPreset("tiny");
  model.qkvBias = true;  // 1-D biases among the parameters: they must not decay
  return model;
}

DecoderWeights weights() {
  return tb::engine::initialiseWeights(tinyModel(), 5, c10::Device(c10::DeviceType::CPU));
}

std::map<std::string, at::Tensor> byName(const std::vector<NamedTensor>& tensors) {
  std::map<std::string, at::Tensor> map;
  for (const auto& entry : tensors) map[entry.name] = entry.tensor;
  return map;
}

/// Gradients for step `step`: large on odd steps (clipping acts), small on even.
at::Tensor gradientFor(const NamedTensor& parameter, int step) {
  at::manual_seed(static_cast<std::uint64_t>(step) * 1000U + parameter.name.size());
  return at::randn(parameter.tensor.sizes()) * (step % 2 == 1 ? 0.5 : 1e-4);
}

void expectSameTrajectory(bool fusedUpdate) {
  DecoderWeights perTensorWeights = weights();
  const std::vector<NamedTensor> perTensor = tb::engine::namedParameters(perTensorWeights);
  AdamW optimizer(perTensor);
  DecoderWeights flatWeights = weights();
  FlatParameters flat(flatWeights, {}, fusedUpdate);

  for (int step = 1; step <= 5; ++step) {
    for (const auto& parameter : perTensor) {
      parameter.tensor.mutable_grad() = gradientFor(parameter, step);
    }
    for (const auto& parameter : flat.parameters()) {
      parameter.tensor.grad().copy_(gradientFor(parameter, step));
    }
    const double expectedNorm = tb::engine::clipGradientNorm(perTensor, kMaxNorm);
    optimizer.step();
    optimizer.zeroGrad();
    const double norm = flat.clipAndStep(kMaxNorm).item<double>();
    flat.zeroGrad();
    EXPECT_NEAR(norm, expectedNorm, kRuntimeFlatRelTolerance * expectedNorm) << "step " << step;

    const auto flatByName = byName(flat.parameters());
    ASSERT_EQ(flatByName.size(), perTensor.size());
    for (const auto& parameter : perTensor) {
      EXPECT_LE(relativeError(flatByName.at(parameter.name), parameter.tensor),
                kRuntimeFlatRelTolerance)
          << parameter.name << " after step " << step;
    }
  }
  const auto flatState = byName(flat.state());
  for (const auto& entry : optimizer.state()) {
    ASSERT_TRUE(flatState.count(entry.name) == 1) << entry.name;
    EXPECT_LE(relativeError(flatState.at(entry.name), entry.tensor), kRuntimeFlatRelTolerance)
        << entry.name;
  }
}

TEST(FlatParameters, ClippedAdamWFollowsThePerTensorOptimizer) { expectSameTrajectory(false); }

TEST(FlatParameters, FusedClippedAdamWFollowsThePerTensorOptimizer) { expectSameTrajectory(true); }

TEST(FlatParameters, DecayingMatricesComeFirstAndBiasesAfter) {
  DecoderWeights w = weights();
  const FlatParameters flat(w);
  std::int64_t offset = 0;
  for (const auto& parameter : flat.parameters()) {
    const bool decays = parameter.tensor.dim() == 2;
    EXPECT_EQ(decays, offset < flat.decayEnd()) << parameter.name;
    offset += parameter.tensor.numel();
  }
  EXPECT_EQ(offset, flat.valueBuffer().numel());
}

TEST(FlatParameters, BackwardAccumulatesIntoTheFlatGradientBufferInPlace) {
  DecoderWeights w = weights();
  FlatParameters flat(w);
  std::map<std::string, const void*> gradientStorage;
  for (const auto& parameter : flat.parameters()) {
    gradientStorage[parameter.name] = parameter.tensor.grad().data_ptr();
  }
  const tb::engine::Decoder decoder(tinyModel(), w, tb::engine::referenceOps(), at::kFloat);
  const at::Tensor rows = at::randint(0, 512, {2, 17}, at::kLong);
  decoder.loss(rows).backward();

  double squares = 0.0;
  for (const auto& parameter : flat.parameters()) {
    const at::Tensor grad = parameter.tensor.grad();
    EXPECT_EQ(grad.data_ptr(), gradientStorage.at(parameter.name)) << parameter.name;
    squares += grad.pow(2).sum().item<double>();
  }
  EXPECT_GT(squares, 0.0);
  EXPECT_NEAR(flat.gradientBuffer().pow(2).sum().item<double>(), squares, 1e-5 * squares);
  flat.zeroGrad();
  EXPECT_EQ(flat.gradientBuffer().abs().max().item<double>(), 0.0);
}

TEST(FlatParameters, RestoreRefusesStateWithAMissingTensor) {
  DecoderWeights w = weights();
  FlatParameters flat(w);
  std::vector<NamedTensor> state = flat.state();
  state.pop_back();
  EXPECT_THROW(flat.restore(state, 3), std::invalid_argument);
}

std::int64_t parameterBytes(const DecoderWeights& weights) {
  std::int64_t bytes = 0;
  for (const NamedTensor& parameter : tb::engine::namedParameters(weights)) {
    bytes += parameter.tensor.numel() * 4;
  }
  return bytes;
}

/// Bytes allocated for small tensors (scalars, the norms' stack) besides the
/// buffers: far below one buffer of the tiny model (about 0.5 MB).
constexpr std::int64_t kSmallTensorBytes = 16 * 1024;

TEST(FlatParameters, BuildingTheBuffersReleasesThePerTensorWeightsFirst) {
  auto& allocator = tb::engine::TrackingCpuAllocator::install();
  DecoderWeights built = weights();
  const std::int64_t buffer = parameterBytes(built);
  const auto before =
      static_cast<std::int64_t>(allocator.liveBytes());  // the weights: one buffer's worth
  allocator.resetPeak();
  const FlatParameters flat(built);
  const auto peak = static_cast<std::int64_t>(allocator.peakBytes()) - before;
  const auto kept = static_cast<std::int64_t>(allocator.liveBytes()) - before;
  EXPECT_NEAR(static_cast<double>(kept), 3.0 * static_cast<double>(buffer),
              static_cast<double>(kSmallTensorBytes))
      << "four buffers live, the per-tensor weights released";
  EXPECT_LE(peak, 3 * buffer + kSmallTensorBytes) << "one buffer: " << buffer;
}

TEST(FlatParameters, ThePlainUpdateMakesOneBufferSizedTemporary) {
  auto& allocator = tb::engine::TrackingCpuAllocator::install();
  DecoderWeights built = weights();
  const std::int64_t buffer = parameterBytes(built);
  FlatParameters flat(built);
  for (const NamedTensor& parameter : flat.parameters()) {
    parameter.tensor.mutable_grad().copy_(gradientFor(parameter, 1));
  }
  const auto before = static_cast<std::int64_t>(allocator.liveBytes());
  allocator.resetPeak();
  (void)flat.clipAndStep(kMaxNorm);
  const auto peak = static_cast<std::int64_t>(allocator.peakBytes()) - before;
  EXPECT_GE(peak, buffer);
  EXPECT_LE(peak, buffer + kSmallTensorBytes) << "one buffer: " << buffer;
}

}  // namespace
