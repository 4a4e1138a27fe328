// AdamW and gradient-norm clipping written out with tensor ops rather than
// torch::optim: the update is the exact formula of torch.optim.AdamW, its state
// is plain named tensors that checkpoints store by name, and the fused and
// flat-buffer updates (fused/adamw, runtime/parameter_update) have it as their
// reference.
#pragma once

#include <cstdint>
#include <vector>

#include "model/decoder.hpp"

namespace tb::engine {

/// Hyper-parameters fixed by the model definition.
struct AdamWOptions {
  double learningRate = 3e-4;
  double beta1 = 0.9;
  double beta2 = 0.95;
  double epsilon = 1e-8;
  double weightDecay = 0.1;  ///< applied to 2-D weights only
};

/// Decoupled-weight-decay Adam over named parameters.
class AdamW {
 public:
  AdamW(std::vector<NamedTensor> parameters, AdamWOptions options = {});

  /// One update from the parameters' current gradients.
  void step();
  /// Drops the gradients (set to undefined, like set_to_none=True).
  void zeroGrad();

  [[nodiscard]] std::int64_t stepCount() const { return steps_; }
  [[nodiscard]] const AdamWOptions& options() const { return options_; }

  /// First and second moments, named "exp_avg.<param>" / "exp_avg_sq.<param>".
  [[nodiscard]] std::vector<NamedTensor> state() const;
  /// Restores moments saved by state() and the step count they belong to.
  void restore(const std::vector<NamedTensor>& state, std::int64_t stepCount);

 private:
  struct Slot {
    NamedTensor parameter;
    at::Tensor expAvg;
    at::Tensor expAvgSq;
    bool decays = false;
  };

  std::vector<Slot> slots_;
  AdamWOptions options_;
  std::int64_t steps_ = 0;
};

/// Scales all gradients so their global L2 norm is at most maxNorm (as
/// torch.nn.utils.clip_grad_norm_ does) and returns the norm before clipping
/// as a 0-d float32 tensor (reading it back is the caller's choice: a sync on
/// a GPU). An undefined tensor when no parameter has a gradient.
at::Tensor clipGradients(const std::vector<NamedTensor>& parameters, double maxNorm);

/// clipGradients with the norm read back (0 when there were no gradients).
double clipGradientNorm(const std::vector<NamedTensor>& parameters, double maxNorm);

}  // namespace tb::engine
