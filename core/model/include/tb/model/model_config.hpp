// The shape of a Llama-style decoder as a plain struct, so that the engine,
// the memory predictor, the CLI and the GUI can name a model without LibTorch.
// Presets carry the published shapes of real architectures; overrides let a
// user change any one field, and validation names the first bad one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tb/common/expected.hpp"

namespace tb::model {

/// A decoder-only transformer: V×D embedding, L blocks (GQA attention with
/// RoPE, SwiGLU feed-forward, RMSNorm), final RMSNorm, untied D×V head.
struct ModelConfig {
  std::string name = "custom";  ///< preset name, or "custom"
  std::int64_t vocab = 512;
  std::int64_t dim = 64;  ///< model width D
  std::int64_t layers = 2;
  std::int64_t heads = 4;    ///< query heads; head_dim = dim / heads
  std::int64_t kvHeads = 2;  ///< key/value heads, repeated to the query heads
  std::int64_t ffn = 192;    ///< SwiGLU hidden width
  std::int64_t seq = 64;     ///< tokens per sequence
  std::int64_t batch = 4;    ///< sequences per micro-batch
  double ropeTheta = 10000.0;
  bool qkvBias = false;  ///< Qwen2-style biases on the Q, K, V projections

  friend bool operator==(const ModelConfig&, const ModelConfig&) = default;
};

/// Per-field overrides from MODEL-FLAGS; an unset field keeps the preset's value.
struct ModelOverrides {
  std::optional<std::int64_t> vocab, dim, layers, heads, kvHeads, ffn, seq, batch;
};

/// RMSNorm epsilon, fixed by the model definition so results compare.
inline constexpr double kNormEpsilon = 1e-5;

/// Names of the built-in presets, in display order.
[[nodiscard]] std::vector<std::string> presetNames();

/// The preset called `name`; NotFound lists the known names.
[[nodiscard]] Expected<ModelConfig> findPreset(std::string_view name);

/// Applies overrides; the result is named "<preset>+custom" when anything changed.
[[nodiscard]] ModelConfig applyOverrides(ModelConfig config, const ModelOverrides& overrides);

/// Checks every field; the error names the first bad field and its value.
[[nodiscard]] Status validate(const ModelConfig& config);

/// dim / heads (call on a validated config).
[[nodiscard]] std::int64_t headDim(const ModelConfig& config);

/// Exact number of trainable parameters (llama3-8b: 8,030,261,248).
[[nodiscard]] std::int64_t parameterCount(const ModelConfig& config);

/// Training FLOPs per token: 6·N (forward and backward matmuls over all
/// parameters) + 12·L·D·seq (attention scores and values).
[[nodiscard]] double flopsPerToken(const ModelConfig& config);

}  // namespace tb::model
