// The fused CPU operators of the compiled step (the CompilerOpt path). Each is
// a custom autograd function with a hand-written forward and backward kernel
// (at::parallel_for over rows, at::vec::Vectorized inside), equal to its plain
// reference in ops/ within float32 rounding; the parity tests hold them to it.
// Inputs are float32 CPU tensors; the compiled step falls back to the plain
// op for anything else, so a CUDA backend can later add its own kernels
// behind the same functions.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>

#include "matmul/matmul_path.hpp"
#include "ops/ops.hpp"

namespace tb::engine::fused {

/// ops::rmsNorm in one pass forward and one backward, keeping only the
/// per-row inverse RMS for backward.
[[nodiscard]] at::Tensor rmsNorm(const at::Tensor& x, const at::Tensor& weight, double eps);

/// ops::rope on x [B, T, H, hd] (hd even), without intermediate tensors.
[[nodiscard]] at::Tensor rope(const at::Tensor& x, const ops::RopeTables& tables);

/// ops::swiGluGate: silu(a) * b in one pass, both gradients in one pass.
[[nodiscard]] at::Tensor swiGluGate(const at::Tensor& a, const at::Tensor& b);

/// ops::causalAttention (grouped-query, causal, 1/sqrt(hd)) with an online
/// softmax over key tiles: the T×T probabilities are never stored; backward
/// recomputes them tile by tile from the saved row log-sum-exp.
[[nodiscard]] at::Tensor causalAttention(const at::Tensor& q, const at::Tensor& k,
                                         const at::Tensor& v);

/// ops::crossEntropy(x · weightᵀ, targets) computed `chunkRows` rows at a
/// time: the [N, vocab] logits exist one chunk at a time, and when autograd
/// records, forward computes the input gradients as it goes (backward only
/// scales them). The logits' products run on `path`.
[[nodiscard]] at::Tensor headLoss(const at::Tensor& x, const at::Tensor& weight,
                                  const at::Tensor& targets, const MatmulPath& path,
                                  std::int64_t chunkRows = 256);

/// The same loss with the logits rebuilt in backward instead: forward keeps
/// x, the weight, the targets and one log-sum-exp per row, and backward
/// recomputes each chunk's logits to form dX and dW (one more head product
/// than headLoss, whose gradients are formed in forward). Float32 on the CPU.
[[nodiscard]] at::Tensor headLossRebuiltInBackward(const at::Tensor& x, const at::Tensor& weight,
                                                   const at::Tensor& targets,
                                                   const MatmulPath& path,
                                                   std::int64_t chunkRows = 256);

/// AdamW's hyper-parameters at one step (the step count starts at 1).
struct AdamWStep {
  double learningRate = 3e-4;
  double beta1 = 0.9;
  double beta2 = 0.95;
  double epsilon = 1e-8;
  double weightDecay = 0.1;
  std::int64_t step = 1;
};

/// Gradient clipping to `maxNorm` and one AdamW step over flat float32
/// buffers of equal length, in two passes (the norm, then everything else);
/// elements [0, decayEnd) get weight decay. The same arithmetic as
/// clipGradientNorm followed by AdamW::step. Returns the norm before clipping.
double clippedAdamW(at::Tensor& params, const at::Tensor& grads, at::Tensor& expAvg,
                    at::Tensor& expAvgSq, std::int64_t decayEnd, const AdamWStep& hyper,
                    double maxNorm);

/// ZeRO-1's share of clippedAdamW: clipped by the norm of all of `grads`, it
/// updates elements [first, first + expAvg.numel()) of `params` (those of
/// them below grads.numel(); params may be longer, padded to equal shards),
/// whose moments are `expAvg` / `expAvgSq`. clippedAdamW is the shard at 0
/// that covers everything; per element the two compute the same.
double clippedAdamWShard(at::Tensor& params, const at::Tensor& grads, at::Tensor& expAvg,
                         at::Tensor& expAvgSq, std::int64_t first, std::int64_t decayEnd,
                         const AdamWStep& hyper, double maxNorm);

}  // namespace tb::engine::fused
