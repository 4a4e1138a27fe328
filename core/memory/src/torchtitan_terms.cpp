// The terms that are torchtitan's own: what its per-op checkpointing keeps,
// its loss at the head, and what PyTorch's caching allocator reserves beyond
// the tensors of the peak in its runs. Each is derived in docs/MEMORY.md
// ("The torchtitan profile") from torchtitan's code and checked against the
// measured H100 peaks in tests/data/memory/measured-peaks.json.
#include "memory_terms.hpp"

#include <algorithm>

namespace tb::memory::detail {
namespace {

double tokensPerRank(const model::ModelConfig& model) { return d(model.batch) * d(model.seq); }

double sequenceShards(const ParallelConfig& parallel) {
  return parallel.sequenceParallel ? d(parallel.tp) : 1.0;
}

}  // namespace

double opCheckpointBytes(const model::ModelConfig& model, const ParallelConfig& parallel,
                         bool float8) {
  const double tokens = tokensPerRank(model);
  const double h = d(model.dim);
  const double f = d(model.ffn);
  const double kv = d(model.kvHeads) * (h / d(model.heads));
  const double t = d(parallel.tp);
  const double sp = sequenceShards(parallel);
  const double e = d(bytesOf(parallel.dtype));
  // The block's input is what the checkpoint itself holds; attention keeps
  // its output and one fp32 log-sum-exp per query row and head (the flash and
  // efficient SDPA kernels are in the save list).
  const double common = h * e / sp + h * e / t + 4.0 * d(model.heads) / t;
  double products = 0;
  if (!float8) {
    // mm outputs 1, 3, 5 and 7 of the block: wq, wv, w1 (column-parallel,
    // split over TP) and w2, whose row-parallel output is whole before its
    // reduce-scatter; under TP the reduce-scatter's output is saved as well.
    products = (h + kv + f) / t + h + (parallel.tp > 1 ? h / sp : 0.0);
  } else {
    // Float8 linears run aten._scaled_mm, which is not in the save list and
    // does not advance the mm counter, so no product is kept; the list's
    // aten.abs keeps the absolute values the dynamic scales are taken from,
    // one per distinct input (CSE under compile): the two norms' outputs,
    // attention's output before wo and the SwiGLU product before w2.
    products = 2 * h / sp + h / t + f / t;
  }
  return tokens * (common + products * e);
}

double torchtitanLogitsBytes(const model::ModelConfig& model, const ParallelConfig& parallel,
                             FrameworkVersion version) {
  const double tokens = tokensPerRank(model);
  const double entries = tokens * d(model.vocab) / d(parallel.tp);
  // Dec 2024: cross_entropy(pred.float()) with `del pred` before backward.
  // At log_softmax's backward: the saved log-softmax, nll_loss's gradient and
  // the gradient it returns, fp32 each (12 B). Under TP the loss is parallel
  // over the vocabulary (DTensor's loss_parallel), whose backward forms
  // exp(log-softmax) beside them: 16 B. From mid-2025 the loss is compiled and
  // the fp32 copy of the logits is fused away: 4 B less.
  double perEntry = parallel.tp > 1 ? 16.0 : 12.0;
  if (version != FrameworkVersion::Dec2024) perEntry -= 4.0;
  // The output projection is column-parallel over TP: its input, the final
  // norm's output, is all-gathered to every token and kept for its backward.
  const double gathered = parallel.tp > 1 ? tokens * d(model.dim) * d(bytesOf(parallel.dtype)) : 0;
  return entries * perEntry + gathered;
}

double collectiveCacheBytes(const model::ModelConfig& model, const ParallelConfig& parallel) {
  if (parallel.tp <= 1) return 0;
  // Sequence parallelism all-gathers a block's two norm outputs and
  // reduce-scatters its two row-parallel outputs, whole [tokens, h] tensors
  // in 16 bits, on NCCL's stream; the caching allocator keeps such blocks
  // for that stream. Async TP's symmetric-memory matmuls hold the all-gathers
  // outside the allocator, leaving the two reduce-scatters.
  const double whole = tokensPerRank(model) * d(model.dim) * d(bytesOf(parallel.dtype));
  return (parallel.asyncTp ? 2.0 : 4.0) * whole;
}

double allocatorSlackFraction(Profile profile, bool compiled) {
  switch (profile) {
    case Profile::Engine: return 0.0;
    case Profile::Megatron: return 0.05;  // Megatron's own estimator multiplies by 1.05
    case Profile::DeepSpeed: return 0.10;
    case Profile::Fsdp: return 0.08;
    case Profile::Torchtitan:
      // Fitted on the measured rows marked "fit" in docs/MEMORY.md: the
      // median reserved / modelled ratio, eager and compiled separately (the
      // eager blocks' unfused fp32 norm and RoPE temporaries fragment more).
      return compiled ? kTorchtitanCompiledSlack : kTorchtitanEagerSlack;
  }
  return 0.0;
}

}  // namespace tb::memory::detail
