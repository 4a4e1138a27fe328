// The Llama-style decoder as plain weight tensors and forward functions, not
// a torch::nn::Module: the optimizer, checkpoints and the PyTorch parity
// test address parameters by stable names, and a block is one function of
// (weights, input) that activation recomputation (recompute.hpp) wraps.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <string>
#include <vector>

#include "model/decoder_ops.hpp"
#include "model/recompute.hpp"
#include "tb/engine/model.hpp"

namespace tb::engine {

/// One block's parameters, nn.Linear-shaped ([out, in]); biases only with qkvBias.
struct BlockWeights {
  at::Tensor attentionNorm, wq, wk, wv, bq, bk, bv, wo;
  at::Tensor ffnNorm, w1, w2, w3;
};

/// All parameters of the decoder (float32 master weights).
struct DecoderWeights {
  at::Tensor embedding;  ///< [vocab, dim]
  std::vector<BlockWeights> blocks;
  at::Tensor finalNorm;  ///< [dim]
  at::Tensor output;     ///< [vocab, dim], untied from the embedding
};

/// A tensor with the name it has in checkpoints ("layers.0.attention.wq").
struct NamedTensor {
  std::string name;
  at::Tensor tensor;
};

/// Linear and embedding weights from normal(0, 0.02), norms one, biases zero;
/// drawn on the CPU from `seed` so every device starts from the same weights.
[[nodiscard]] DecoderWeights initialiseWeights(const ModelConfig& config, std::uint64_t seed,
                                               c10::Device device);

/// Every parameter in a fixed order, sharing storage with `weights`.
[[nodiscard]] std::vector<NamedTensor> namedParameters(const DecoderWeights& weights);
/// Where namedParameters puts the token embedding: first.
inline constexpr std::size_t kEmbeddingParameter = 0;

/// Forward passes of one model; matrix products run in `computeType` (float32
/// on the CPU, bf16 on a GPU) while the weights stay float32.
class Decoder {
 public:
  Decoder(ModelConfig config, DecoderWeights weights, const DecoderOps& ops,
          at::ScalarType computeType);

  /// What each block and the head keep for backward under a resolved
  /// `policy` (recomputeLayout, rebuildsHead); everything is kept until set.
  /// Auto is refused: the planner resolves it first.
  void setRecompute(const RecomputePolicy& policy);

  /// tokens [B, T] (T <= seq) -> logits [B, T, vocab].
  [[nodiscard]] at::Tensor logits(const at::Tensor& tokens) const;
  /// One block: x [B, T, dim] -> [B, T, dim].
  [[nodiscard]] at::Tensor block(std::size_t layer, const at::Tensor& x) const;
  /// Mean next-token loss of rows [B, T + 1]: inputs [:, :T], targets [:, 1:].
  [[nodiscard]] at::Tensor loss(const at::Tensor& rows) const;
  /// The tokens loss(rows) looks up: rows [:, :T].
  [[nodiscard]] static at::Tensor inputs(const at::Tensor& rows);

  [[nodiscard]] const DecoderWeights& weights() const { return weights_; }
  [[nodiscard]] const ModelConfig& config() const { return config_; }

 private:
  [[nodiscard]] at::Tensor project(const at::Tensor& x, const at::Tensor& weight,
                                   const at::Tensor& bias = {}) const;
  /// Embedding and blocks: tokens [B, T] -> [B, T, dim], before the final norm.
  [[nodiscard]] at::Tensor hidden(const at::Tensor& tokens) const;
  /// The block's math with its weights passed in, so a recomputed block can
  /// be differentiated with respect to detached copies of them.
  /// `modules` (model::RecomputeModule bits) are rebuilt in backward.
  [[nodiscard]] at::Tensor blockForward(const BlockWeights& b, const at::Tensor& x,
                                        std::uint8_t modules) const;
  /// The products weights[i]·rmsNorm(x) (+ biases[i]), the norm kept or
  /// rebuilt in backward; weights and biases are cast to the compute type.
  [[nodiscard]] std::vector<at::Tensor> normedProducts(const at::Tensor& x, const at::Tensor& norm,
                                                       std::vector<at::Tensor> weights,
                                                       std::vector<at::Tensor> biases,
                                                       bool recomputeNorm) const;

  ModelConfig config_;
  DecoderWeights weights_;
  const DecoderOps* ops_;
  at::ScalarType computeType_;
  ops::RopeTables rope_;
  std::vector<BlockRecompute> recompute_;
  bool headRebuilt_ = false;
};

}  // namespace tb::engine
