// The optimizer side of a step behind one interface, so the training loop is
// the same for the stock runtime (AdamW tensor by tensor, as adamw.hpp) and the
// tuned one (whole flat buffers, flat_parameters.hpp). The gradient norm comes
// back as a tensor: the loop decides when to pay for reading it.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/adamw.hpp"

namespace tb::engine {

/// Clipping, AdamW and gradient reset over a model's parameters.
class ParameterUpdate {
 public:
  virtual ~ParameterUpdate() = default;
  /// The parameters, named as checkpoints store them.
  [[nodiscard]] virtual const std::vector<NamedTensor>& parameters() const = 0;
  /// Clips the gradients' global L2 norm to maxNorm and applies one AdamW step;
  /// returns the norm before clipping as a 0-d tensor that is not read back.
  [[nodiscard]] virtual at::Tensor clipAndStep(double maxNorm) = 0;
  /// Readies the gradients for the next backward.
  virtual void zeroGrad() = 0;
  /// AdamW's moments named "exp_avg.<param>" / "exp_avg_sq.<param>".
  [[nodiscard]] virtual std::vector<NamedTensor> state() const = 0;
  /// Restores moments saved by state() and the step count they belong to.
  virtual void restore(const std::vector<NamedTensor>& state, std::int64_t stepCount) = 0;
  [[nodiscard]] virtual const AdamWOptions& options() const = 0;
  /// The one buffer all weights / all gradients live in, if there is one
  /// (flat parameters): data parallelism then sends it whole or in slices.
  [[nodiscard]] virtual at::Tensor valueBuffer() const { return {}; }
  [[nodiscard]] virtual at::Tensor gradientBuffer() const { return {}; }
};

/// The stock update: clipGradients then AdamW::step, one tensor at a time.
[[nodiscard]] std::unique_ptr<ParameterUpdate> perTensorUpdate(std::vector<NamedTensor> parameters,
                                                               AdamWOptions options = {});

}  // namespace tb::engine
