// Forward pass of the decoder, in the order of the model definition:
// h = x + Wo·Attn(RoPE(Wq·n1(x)), RoPE(Wk·n1(x)), Wv·n1(x)),
// out = h + W2·(silu(W1·n2(h)) * W3·n2(h)), then final norm and output head.
#include "model/decoder.hpp"

#include <ATen/CPUGeneratorImpl.h>

#include <stdexcept>
#include <string>
#include <utility>

namespace tb::engine {
namespace {

constexpr double kInitStd = 0.02;

class Initialiser {
 public:
  explicit Initialiser(std::uint64_t seed)
      : generator_(at::make_generator<at::CPUGeneratorImpl>(seed)) {}

  at::Tensor normal(at::IntArrayRef shape) {
    return finish(at::empty(shape, at::kFloat).normal_(0.0, kInitStd, generator_));
  }
  at::Tensor ones(at::IntArrayRef shape) { return finish(at::ones(shape, at::kFloat)); }
  at::Tensor zeros(at::IntArrayRef shape) { return finish(at::zeros(shape, at::kFloat)); }
  void moveTo(c10::Device device) { device_ = device; }

 private:
  at::Tensor finish(const at::Tensor& cpu) const { return cpu.to(device_).requires_grad_(true); }

  at::Generator generator_;
  c10::Device device_{c10::DeviceType::CPU};
};

// A block's tensors in one fixed order (biases only when it has them), to
// pass a block's weights through a recomputed segment and back; Weights is
// BlockWeights or const BlockWeights.
template <typename Weights>
auto blockTensors(Weights& b, bool hasBias) {
  std::vector<decltype(&b.wq)> tensors{&b.attentionNorm, &b.wq, &b.wk, &b.wv};
  if (hasBias) tensors.insert(tensors.end(), {&b.bq, &b.bk, &b.bv});
  tensors.insert(tensors.end(), {&b.wo, &b.ffnNorm, &b.w1, &b.w2, &b.w3});
  return tensors;
}

}  // namespace

DecoderWeights initialiseWeights(const ModelConfig& config, std::uint64_t seed,
                                 c10::Device device) {
  Initialiser init(seed);
  init.moveTo(device);
  const std::int64_t d = config.dim;
  const std::int64_t kvWidth = config.kvHeads * headDim(config);
  DecoderWeights weights;
  weights.embedding = init.normal({config.vocab, d});
  for (std::int64_t layer = 0; layer < config.layers; ++layer) {
    BlockWeights block;
    block.attentionNorm = init.ones({d});
    block.wq = init.normal({d, d});
    block.wk = init.normal({kvWidth, d});
    block.wv = init.normal({kvWidth, d});
    if (config.qkvBias) {
      block.bq = init.zeros({d});
      block.bk = init.zeros({kvWidth});
      block.bv = init.zeros({kvWidth});
    }
    block.wo = init.normal({d, d});
    block.ffnNorm = init.ones({d});
    block.w1 = init.normal({config.ffn, d});
    block.w2 = init.normal({d, config.ffn});
    block.w3 = init.normal({config.ffn, d});
    weights.blocks.push_back(std::move(block));
  }
  weights.finalNorm = init.ones({d});
  weights.output = init.normal({config.vocab, d});
  return weights;
}

std::vector<NamedTensor> namedParameters(const DecoderWeights& weights) {
  std::vector<NamedTensor> named{{"embedding", weights.embedding}};
  for (std::size_t i = 0; i < weights.blocks.size(); ++i) {
    const BlockWeights& b = weights.blocks[i];
    const std::string prefix = "layers." + std::to_string(i) + ".";
    named.push_back({prefix + "attention_norm", b.attentionNorm});
    named.push_back({prefix + "attention.wq", b.wq});
    named.push_back({prefix + "attention.wk", b.wk});
    named.push_back({prefix + "attention.wv", b.wv});
    if (b.bq.defined()) {
      named.push_back({prefix + "attention.bq", b.bq});
      named.push_back({prefix + "attention.bk", b.bk});
      named.push_back({prefix + "attention.bv", b.bv});
    }
    named.push_back({prefix + "attention.wo", b.wo});
    named.push_back({prefix + "ffn_norm", b.ffnNorm});
    named.push_back({prefix + "feed_forward.w1", b.w1});
    named.push_back({prefix + "feed_forward.w2", b.w2});
    named.push_back({prefix + "feed_forward.w3", b.w3});
  }
  named.push_back({"norm", weights.finalNorm});
  named.push_back({"output", weights.output});
  return named;
}

Decoder::Decoder(ModelConfig config, DecoderWeights weights, const DecoderOps& ops,
                 at::ScalarType computeType)
    : config_(std::move(config)),
      weights_(std::move(weights)),
      ops_(&ops),
      computeType_(computeType),
      // bf16 has 8 mantissa bits: rotation angles stay in at least float32.
      rope_(ops::ropeTables(config_.seq, headDim(config_), config_.ropeTheta,
                            at::TensorOptions()
                                .dtype(at::promote_types(computeType, at::kFloat))
                                .device(weights_.embedding.device()))) {}

at::Tensor Decoder::project(const at::Tensor& x, const at::Tensor& weight,
                            const at::Tensor& bias) const {
  const at::Tensor castBias = bias.defined() ? bias.to(computeType_) : at::Tensor();
  return ops_->linear(x, weight.to(computeType_), castBias);
}

void Decoder::setRecompute(const RecomputePolicy& policy) {
  if (policy.mode == RecomputeMode::Auto) {
    throw std::invalid_argument("--recompute auto must be resolved to a policy before training");
  }
  recompute_ = recomputeLayout(policy, static_cast<std::int64_t>(weights_.blocks.size()));
  headRebuilt_ = rebuildsHead(policy);
}

std::vector<at::Tensor> Decoder::normedProducts(const at::Tensor& x, const at::Tensor& norm,
                                                std::vector<at::Tensor> weights,
                                                std::vector<at::Tensor> biases,
                                                bool recomputeNorm) const {
  for (at::Tensor& weight : weights) weight = weight.to(computeType_);
  for (at::Tensor& bias : biases) bias = bias.defined() ? bias.to(computeType_) : bias;
  const auto normed = [ops = ops_](const std::vector<at::Tensor>& in) {
    return ops->rmsNorm(in[0], in[1]);
  };
  if (recomputeNorm) {
    return linearsOfRecomputedInput(ops_->matmulPath(), normed, {x, norm}, weights, biases);
  }
  return productsOf(ops_->matmulPath(), normed({x, norm}), weights, biases);
}

at::Tensor Decoder::blockForward(const BlockWeights& b, const at::Tensor& x,
                                 std::uint8_t modules) const {
  const auto batch = x.size(0);
  const auto seq = x.size(1);
  const auto hd = headDim(config_);

  const std::vector<at::Tensor> qkv = normedProducts(
      x, b.attentionNorm, {b.wq, b.wk, b.wv}, {b.bq, b.bk, b.bv}, (modules & model::kNorms) != 0);
  const at::Tensor q = qkv[0].view({batch, seq, config_.heads, hd});
  const at::Tensor k = qkv[1].view({batch, seq, config_.kvHeads, hd});
  const at::Tensor v = qkv[2].view({batch, seq, config_.kvHeads, hd});
  const at::Tensor qr = ops_->rope(q, rope_);
  const at::Tensor kr = ops_->rope(k, rope_);
  const at::Tensor attended = (modules & model::kCoreAttention) != 0
                                  ? ops_->attentionRebuiltInBackward(qr, kr, v)
                                  : ops_->attention(qr, kr, v);
  const at::Tensor h = x + project(attended, b.wo);

  // SwiGLU as its three products around the gate, so that the gate (and the
  // norm in front of w1 and w3) can be rebuilt in backward on their own.
  const std::vector<at::Tensor> gateInputs =
      normedProducts(h, b.ffnNorm, {b.w1, b.w3}, {}, (modules & model::kNorms) != 0);
  const at::Tensor w2 = b.w2.to(computeType_);
  if ((modules & model::kMlpActivation) == 0) {
    return h + ops_->linear(ops_->swiGluGate(gateInputs[0], gateInputs[1]), w2, at::Tensor());
  }
  const auto gate = [ops = ops_](const std::vector<at::Tensor>& in) {
    return ops->swiGluGate(in[0], in[1]);
  };
  return h + linearsOfRecomputedInput(ops_->matmulPath(), gate, gateInputs, {w2}, {}).front();
}

at::Tensor Decoder::block(std::size_t layer, const at::Tensor& x) const {
  const BlockWeights& b = weights_.blocks.at(layer);
  const BlockRecompute mode = recompute_.empty() ? BlockRecompute{} : recompute_.at(layer);
  if (!mode.wholeBlock) return blockForward(b, x, mode.modules);
  // The weights are inputs of the recomputed segment, so their gradients come
  // back through it; their storage is shared, so saving them costs nothing.
  std::vector<at::Tensor> inputs{x};
  for (const at::Tensor* weight : blockTensors(b, b.bq.defined())) inputs.push_back(*weight);
  const auto segment = [this, hasBias = b.bq.defined()](const std::vector<at::Tensor>& in) {
    BlockWeights rebuilt;
    std::size_t next = 1;
    for (at::Tensor* slot : blockTensors(rebuilt, hasBias)) *slot = in.at(next++);
    return blockForward(rebuilt, in.at(0), 0);
  };
  return recomputeInBackward(segment, inputs);
}

at::Tensor Decoder::hidden(const at::Tensor& tokens) const {
  at::Tensor x = at::embedding(weights_.embedding, tokens).to(computeType_);
  for (std::size_t layer = 0; layer < weights_.blocks.size(); ++layer) x = block(layer, x);
  return x;
}

at::Tensor Decoder::logits(const at::Tensor& tokens) const {
  return project(ops_->rmsNorm(hidden(tokens), weights_.finalNorm), weights_.output);
}

at::Tensor Decoder::inputs(const at::Tensor& rows) { return rows.narrow(1, 0, rows.size(1) - 1); }

at::Tensor Decoder::loss(const at::Tensor& rows) const {
  const at::Tensor targets = rows.narrow(1, 1, rows.size(1) - 1).reshape({-1});
  const at::Tensor normed = ops_->rmsNorm(hidden(inputs(rows)), weights_.finalNorm);
  const at::Tensor rows2d = normed.reshape({-1, normed.size(-1)});
  const at::Tensor head = weights_.output.to(computeType_);
  return headRebuilt_ ? ops_->headLossRebuiltInBackward(rows2d, head, targets)
                      : ops_->headLoss(rows2d, head, targets);
}

}  // namespace tb::engine
