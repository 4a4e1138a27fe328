// The tuned runtime's parameter storage. Parameters, gradients and both AdamW
// moments each live in one float32 buffer with the same layout, 2-D (decaying)
// parameters first, so clipping and AdamW are a handful of whole-buffer ops (or
// one fused pass, fused::clippedAdamW) instead of a few per tensor, and the
// gradients are never reallocated: each parameter's .grad() is a view into the
// gradient buffer that autograd accumulates into in place. Checkpoints still
// see every tensor by name.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/parameter_update.hpp"

namespace tb::engine {

/// Flat buffers behind a decoder's weights, and the update over them.
class FlatParameters final : public ParameterUpdate {
 public:
  /// Copies every tensor of `weights` into the flat buffer and replaces it in
  /// `weights` by a leaf view of that buffer, with its gradient view attached.
  /// `fusedUpdate` runs clipping and AdamW as fused::clippedAdamW.
  FlatParameters(DecoderWeights& weights, AdamWOptions options = {}, bool fusedUpdate = false);

  [[nodiscard]] const std::vector<NamedTensor>& parameters() const override { return named_; }
  [[nodiscard]] at::Tensor clipAndStep(double maxNorm) override;
  void zeroGrad() override;
  [[nodiscard]] std::vector<NamedTensor> state() const override;
  void restore(const std::vector<NamedTensor>& state, std::int64_t stepCount) override;
  [[nodiscard]] const AdamWOptions& options() const override { return options_; }
  [[nodiscard]] at::Tensor valueBuffer() const override { return values_; }
  [[nodiscard]] at::Tensor gradientBuffer() const override { return gradients_; }

  /// Elements [0, decayEnd) belong to 2-D parameters and get weight decay.
  [[nodiscard]] std::int64_t decayEnd() const { return decayEnd_; }

 private:
  [[nodiscard]] std::vector<NamedTensor> viewsOf(const at::Tensor& flat,
                                                 const std::string& prefix) const;

  AdamWOptions options_;
  bool fusedUpdate_ = false;
  std::int64_t steps_ = 0;
  std::int64_t decayEnd_ = 0;
  std::vector<NamedTensor> named_;       // leaf views of values_, in buffer order
  std::vector<std::int64_t> offsets_;    // of each entry of named_
  at::Tensor values_, gradients_, expAvg_, expAvgSq_;
};

}  // namespace tb::engine
