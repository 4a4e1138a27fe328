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
#include <functional>
#include <string>
#include <vector>

#include "runtime/parameter_update.hpp"

namespace tb::engine {

/// ZeRO-1: this process keeps AdamW's moments for one of `count` equal
/// shards of the buffer and updates only that shard; `gather` then makes
/// every shard's new values everyone's (an all-gather over the ranks, in
/// place on a buffer padded to count equal shards). One shard of one is the
/// plain update.
struct UpdateShard {
  int index = 0;
  int count = 1;
  /// Fills every shard of `padded` from the rank that owns it; `what` names
  /// the collective for an error.
  std::function<void(at::Tensor padded, const std::string& what)> gather;
};

/// Flat buffers behind a decoder's weights, and the update over them.
class FlatParameters final : public ParameterUpdate {
 public:
  /// Copies every tensor of `weights` into the flat buffer and replaces it in
  /// `weights` by a leaf view of that buffer, with its gradient view attached.
  /// `fusedUpdate` runs clipping and AdamW as fused::clippedAdamW.
  FlatParameters(DecoderWeights& weights, AdamWOptions options = {}, bool fusedUpdate = false,
                 UpdateShard shard = {});

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
  /// Elements per shard (the whole buffer without sharding); the value
  /// buffer holds shard count × this many, the last shard padded.
  [[nodiscard]] std::int64_t shardElements() const { return shardElements_; }

 private:
  [[nodiscard]] std::vector<NamedTensor> viewsOf(const at::Tensor& flat,
                                                 const std::string& prefix) const;
  /// A moment of the whole buffer: this shard's, or every shard's gathered.
  [[nodiscard]] at::Tensor wholeMoment(const at::Tensor& moment, const std::string& what) const;
  [[nodiscard]] std::int64_t shardBegin() const { return shard_.index * shardElements_; }

  AdamWOptions options_;
  bool fusedUpdate_ = false;
  UpdateShard shard_;
  std::int64_t total_ = 0;  // elements of every parameter; values_ may be padded
  std::int64_t shardElements_ = 0;
  std::int64_t steps_ = 0;
  std::int64_t decayEnd_ = 0;
  std::vector<NamedTensor> named_;     // leaf views of values_, in buffer order
  std::vector<std::int64_t> offsets_;  // of each entry of named_
  at::Tensor values_, gradients_;
  at::Tensor expAvg_, expAvgSq_;  // this shard's: shardElements_ each
};

}  // namespace tb::engine
