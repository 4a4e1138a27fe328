// One decoder block of a model, forward and backward, timed as a run would
// compute it: the start-up probe races the matrix-product paths on it
// (matmul_probe.hpp, PathRace) because a block holds the step's other
// operators too, and the threads they get depend on the path.
#pragma once

#include <ATen/ATen.h>

#include "model/decoder.hpp"
#include "model/decoder_ops.hpp"
#include "tb/engine/model.hpp"

namespace tb::engine {

class BlockTiming {
 public:
  /// Weights of a one-layer copy of `model` and a micro-batch of inputs, in
  /// float32 on `device`.
  BlockTiming(const ModelConfig& model, c10::Device device);

  /// Wall seconds of one forward and backward of the block on `ops`, with
  /// every intermediate kept (no recomputation), ending in a host read of
  /// one gradient element so that queued device work is inside the time.
  [[nodiscard]] double seconds(const DecoderOps& ops) const;

 private:
  ModelConfig model_;
  DecoderWeights weights_;
  at::Tensor input_;
  at::Tensor gradient_;
};

}  // namespace tb::engine
