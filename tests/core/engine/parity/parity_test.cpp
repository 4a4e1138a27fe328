// Numerical parity with PyTorch itself: the engine and an
// independent Python model (parity/llama_reference.py, Debian's python3-torch)
// get the same weights and tokens, and their logits, loss and every gradient
// must agree to a relative error of 1e-5 in float32. Shapes are odd on purpose
// (prime vocab, head_dim 8 and 10, seq 13) so that a transposed or mis-strided
// tensor cannot agree by accident; norm weights and biases are random, not the
// ones and zeros of initialisation, for the same reason. Python runs as a real
// child process; without PyTorch the test fails (it is a declared dependency).
#include <gtest/gtest.h>

#include <ATen/CPUGeneratorImpl.h>

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "model/decoder.hpp"
#include "model/decoder_ops.hpp"
#include "parity/parity_compare.hpp"
#include "parity/tensor_bundle.hpp"
#include "tb/common/atomic_file.hpp"
#include "tb/common/subprocess.hpp"

namespace {

namespace fs = std::filesystem;
using tb::engine::ModelConfig;
using tb::engine::testing::TensorBundle;

constexpr double kParityTolerance = 1e-5;

ModelConfig gqaShape() {
  ModelConfig config;
  config.name = "parity-gqa";
  config.vocab = 97;
  config.dim = 48;
  config.layers = 2;
  config.heads = 6;
  config.kvHeads = 2;
  config.ffn = 80;
  config.seq = 13;
  config.batch = 3;
  return config;
}

// Multi-head (kv == heads), Llama 3's rope theta, and Qwen-style QKV biases.
ModelConfig fullHeadShape() {
  ModelConfig config;
  config.name = "parity-mha";
  config.vocab = 101;
  config.dim = 40;
  config.layers = 2;
  config.heads = 4;
  config.kvHeads = 4;
  config.ffn = 72;
  config.seq = 11;
  config.batch = 2;
  config.ropeTheta = 500000.0;
  config.qkvBias = true;
  return config;
}

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("tb_parity_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// A model and a batch drawn from `seed`, with norm weights near one and
// biases near zero but neither exactly.
struct Case {
  ModelConfig config;
  tb::engine::DecoderWeights weights;
  at::Tensor rows;  // [batch, seq + 1]
};

Case makeCase(const ModelConfig& config, std::uint64_t seed) {
  Case c{config, tb::engine::initialiseWeights(config, seed, c10::Device(c10::kCPU)), {}};
  auto generator = at::make_generator<at::CPUGeneratorImpl>(seed + 1);
  at::NoGradGuard noGrad;
  for (auto& entry : tb::engine::namedParameters(c.weights)) {
    if (entry.tensor.dim() != 1) continue;
    const bool isNorm = entry.name.find("norm") != std::string::npos;
    entry.tensor.normal_(isNorm ? 1.0 : 0.0, 0.1, generator);
  }
  c.rows = at::randint(config.vocab, {config.batch, config.seq + 1}, generator, at::kLong);
  return c;
}

TensorBundle inputsOf(const Case& c) {
  TensorBundle bundle;
  bundle.config = {{"vocab", c.config.vocab},      {"dim", c.config.dim},
                   {"layers", c.config.layers},    {"heads", c.config.heads},
                   {"kv_heads", c.config.kvHeads}, {"ffn", c.config.ffn},
                   {"seq", c.config.seq},          {"rope_theta", c.config.ropeTheta},
                   {"qkv_bias", c.config.qkvBias}};
  bundle.tensors = tb::engine::namedParameters(c.weights);
  bundle.tensors.push_back({"rows", c.rows});
  return bundle;
}

// The engine's side: logits through Decoder::logits, loss and gradients
// through Decoder::loss and autograd, as the training loop computes them.
TensorBundle engineOutputs(const Case& c) {
  const tb::engine::Decoder decoder(c.config, c.weights, tb::engine::referenceOps(), at::kFloat);
  TensorBundle outputs;
  {
    at::NoGradGuard noGrad;
    outputs.tensors.push_back({"logits", decoder.logits(c.rows.narrow(1, 0, c.config.seq))});
  }
  const at::Tensor loss = decoder.loss(c.rows);
  loss.backward();
  outputs.tensors.push_back({"loss", loss.detach().reshape({1})});
  for (const auto& entry : tb::engine::namedParameters(decoder.weights())) {
    outputs.tensors.push_back({"grad." + entry.name, entry.tensor.grad().clone()});
    entry.tensor.mutable_grad() = at::Tensor();
  }
  return outputs;
}

tb::ProcessResult runReference(const fs::path& dir, const tb::ProcessOptions& extra = {}) {
  tb::ProcessOptions options = extra;
  options.timeout = std::chrono::seconds(180);
  auto result =
      tb::runProcess({TB_SYSTEM_PYTHON, TB_PARITY_SCRIPT, "--dir", dir.string()}, options);
  EXPECT_TRUE(result.ok()) << TB_SYSTEM_PYTHON << " could not be started: "
                           << (result.ok() ? "" : result.error().message);
  return result.ok() ? *result : tb::ProcessResult{};
}

// Runs both sides on `c`; the reference sees `inputs` (normally c's own).
tb::engine::testing::ParityReport compareWithPyTorch(const Case& c, const TensorBundle& inputs,
                                                     const std::string& name) {
  const fs::path dir = scratch(name);
  const auto written = tb::engine::testing::writeBundle(dir, "inputs", inputs);
  EXPECT_TRUE(written.ok()) << (written.ok() ? "" : written.error().message);
  const auto engine = engineOutputs(c);
  const auto run = runReference(dir);
  EXPECT_FALSE(run.timedOut) << "the Python reference did not finish in time";
  EXPECT_EQ(run.exitCode, 0) << TB_SYSTEM_PYTHON << " " << TB_PARITY_SCRIPT
                             << " failed (python3-torch is required):\n"
                             << run.standardError;
  const auto reference = tb::engine::testing::readBundle(dir, "reference");
  if (!reference) {
    ADD_FAILURE() << "no reference outputs: " << reference.error().message;
    return {};
  }
  return tb::engine::testing::compareBundles(engine, *reference);
}

void expectParity(const ModelConfig& config, std::uint64_t seed) {
  const Case c = makeCase(config, seed);
  const auto report = compareWithPyTorch(c, inputsOf(c), config.name);
  // logits, loss, and one gradient per parameter tensor
  EXPECT_EQ(report.tensors.size(), tb::engine::namedParameters(c.weights).size() + 2);
  EXPECT_TRUE(report.missing.empty()) << report.describe();
  EXPECT_LE(report.worst.relativeError, kParityTolerance) << report.describe();
  EXPECT_GE(report.worst.relativeError, 0.0) << report.describe();
  std::printf("%s: %s\n", config.name.c_str(), report.describe().c_str());
}

TEST(ParityWithPyTorch, GroupedQueryShapeMatchesLogitsLossAndGradients) {
  expectParity(gqaShape(), 11);
}

TEST(ParityWithPyTorch, FullHeadsLlama3ThetaAndQkvBiasMatch) { expectParity(fullHeadShape(), 23); }

// Guards the test itself: if the reference silently ignored its inputs (or
// the comparison always passed) a wrong weight would go unnoticed.
TEST(ParityWithPyTorch, APerturbedWeightInTheReferenceIsDetected) {
  const Case c = makeCase(gqaShape(), 11);
  TensorBundle inputs = inputsOf(c);
  for (auto& entry : inputs.tensors) {
    if (entry.name == "layers.1.feed_forward.w2") {
      entry.tensor = entry.tensor.detach().clone();
      entry.tensor.view(-1)[5] += 1e-2F;
    }
  }
  const auto report = compareWithPyTorch(c, inputs, "perturbed");
  EXPECT_GT(report.worst.relativeError, 100 * kParityTolerance) << report.describe();
  for (const auto& tensor : report.tensors) {
    if (tensor.name == "logits") {
      EXPECT_GT(tensor.relativeError, kParityTolerance) << tensor.name << ": " << report.describe();
    }
  }
}

TEST(ParityWithPyTorch, ReferenceWithoutTorchFailsWithAClearMessage) {
  const fs::path fake = scratch("no_torch");
  ASSERT_TRUE(tb::writeFileAtomically(fake / "torch" / "__init__.py",
                                      "raise ImportError('no module named torch (simulated)')\n")
                  .ok());
  tb::ProcessOptions options;
  options.environment["PYTHONPATH"] = fake.string();
  const auto run = runReference(fake, options);
  EXPECT_EQ(run.exitCode, 3) << run.standardError;
  EXPECT_NE(run.standardError.find("python3-torch"), std::string::npos) << run.standardError;
}

TEST(ParityWithPyTorch, ReferenceRejectsInputsThatDoNotFitItsModel) {
  const Case c = makeCase(gqaShape(), 3);
  TensorBundle inputs = inputsOf(c);
  inputs.tensors.erase(inputs.tensors.begin() + 2);  // layers.0.attention.wq
  const fs::path dir = scratch("bad_inputs");
  ASSERT_TRUE(tb::engine::testing::writeBundle(dir, "inputs", inputs).ok());
  const auto run = runReference(dir);
  EXPECT_EQ(run.exitCode, 2) << run.standardError;
  EXPECT_NE(run.standardError.find("layers.0.attention.wq"), std::string::npos)
      << run.standardError;
}

TEST(ParityCompare, NamesTheWorstTensorAndWhatIsMissing) {
  TensorBundle engine;
  TensorBundle reference;
  const at::Tensor base = at::linspace(-2.0, 2.0, 12).reshape({3, 4});
  engine.tensors = {{"same", base.clone()}, {"off", base + 0.04}, {"extra", base}};
  reference.tensors = {{"same", base}, {"off", base}, {"absent", base}};
  const auto report = tb::engine::testing::compareBundles(engine, reference);
  EXPECT_EQ(report.worst.name, "off");
  EXPECT_NEAR(report.worst.relativeError, 0.02, 1e-6);
  EXPECT_EQ(report.missing, (std::vector<std::string>{"absent", "extra"}));
  EXPECT_TRUE(std::isinf(tb::engine::testing::relativeError(base, base.reshape({4, 3}))));
}

TEST(TensorBundle, RoundTripsFloatAndIntegerTensorsExactly) {
  TensorBundle bundle;
  bundle.config = {{"answer", 42}};
  bundle.tensors = {{"w", at::randn({3, 5})}, {"ids", at::arange(7, at::kLong)}};
  const fs::path dir = scratch("round_trip");
  ASSERT_TRUE(tb::engine::testing::writeBundle(dir, "b", bundle).ok());
  const auto back = tb::engine::testing::readBundle(dir, "b");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->config["answer"], 42);
  EXPECT_TRUE(at::equal(back->find("w"), bundle.tensors[0].tensor));
  EXPECT_TRUE(at::equal(back->find("ids"), bundle.tensors[1].tensor));
  TensorBundle half;
  half.tensors = {{"h", at::ones({2}, at::kHalf)}};
  const auto refused = tb::engine::testing::writeBundle(dir, "h", half);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("Half"), std::string::npos) << refused.error().message;
}

}  // namespace
