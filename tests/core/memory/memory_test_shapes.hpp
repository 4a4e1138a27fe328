// Small shapes whose every term can be worked out by hand in a comment, and
// the published presets, shared by the memory tests.
#pragma once

#include "tb/memory/predictor.hpp"
#include "tb/model/model_config.hpp"

namespace tb::memory::test {

/// vocab 1000, dim 8, 1 block, 2 heads (1 kv), ffn 16, seq 2, batch 1:
/// 16,600 parameters, so the optimizer step is the peak.
inline model::ModelConfig headHeavyModel() {
  model::ModelConfig m;
  m.vocab = 1000;
  m.dim = 8;
  m.layers = 1;
  m.heads = 2;
  m.kvHeads = 1;
  m.ffn = 16;
  m.seq = 2;
  m.batch = 1;
  return m;
}

/// vocab 16, dim 8, 4 blocks, 2 heads (1 kv), ffn 16, seq 4, batch 2: eight
/// tokens per micro-batch, small enough to count every saved tensor.
inline model::ModelConfig countableModel() {
  model::ModelConfig m = headHeavyModel();
  m.vocab = 16;
  m.layers = 4;
  m.seq = 4;
  m.batch = 2;
  return m;
}

inline model::ModelConfig preset(const char* name) {
  auto config = model::findPreset(name);
  return config.ok() ? *config : model::ModelConfig{};
}

inline MemoryPrediction predict(const PredictionInput& input) {
  auto prediction = predictMemory(input);
  return prediction.ok() ? *prediction : MemoryPrediction{};
}

}  // namespace tb::memory::test
