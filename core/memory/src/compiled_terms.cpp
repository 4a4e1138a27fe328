// The engine profile's terms for the compiled step (`--compile on`), apart
// from the plain terms so each set reads as one inventory of what autograd
// keeps. The fused operators (core/engine/src/fused/) keep their inputs and a
// per-row statistic instead of their insides: RMSNorm its input and one
// inverse RMS per row, RoPE nothing but the shared tables, the SwiGLU gate
// its two inputs, attention q, k, v, its output and one log-sum-exp per query
// row (no scores, probabilities, repeated K/V or causal mask), and the head
// one chunk of logits at a time, as the plain step's head does under the
// `head` recompute module. docs/MEMORY.md walks through the counts.
#include <algorithm>

#include "memory_terms.hpp"

namespace tb::memory::detail {

bool usesCompiledStep(Profile profile, const ParallelConfig& parallel, bool compile) {
  return compile && profile == Profile::Engine && parallel.dtype == DType::Fp32;
}

bool headModuleChangesStep(Profile profile, const ParallelConfig& parallel, bool compile) {
  return profile == Profile::Engine && parallel.dtype == DType::Fp32 && !compile;
}

BlockBytes compiledBlockBytes(const model::ModelConfig& model, const ParallelConfig& parallel) {
  const double tokens = d(model.batch) * d(model.seq);
  const double h = d(model.dim);
  const double f = d(model.ffn);
  const double kv = d(model.kvHeads) * (h / d(model.heads));
  const double lse = d(model.heads);  // one float per query row and head
  const double t = d(parallel.tp);
  constexpr double e = 4.0;  // the fused kernels are float32
  BlockBytes b;
  // x and n1 (the norm's input and the q/k/v projections' input), the roped
  // q, k and v, the attention output (shared with the output projection),
  // the residual h and n2; w1·x and w3·x (the gate's inputs) and their gated
  // product (w2's input); one inverse RMS per norm; the log-sum-exps.
  b.kept = tokens * (6 * h + 2 * kv + 3 * f + 2 + lse) * e / t;
  // Recomputing the core keeps its inputs, which the fused core keeps anyway:
  // only the log-sum-exps go.
  b.selective = tokens * (6 * h + 2 * kv + 3 * f + 2) * e / t;
  b.checkpoint = tokens * h * e / t;
  // Rebuilding the core in backward brings back its output and log-sum-exps.
  b.attentionCore = tokens * (h + lse) * e / t;
  // SwiGLU's backward is still the larger moment: the gradient in, the
  // gate's gradient and its two input gradients, less the freed product
  // (h + 2f); the fused core's gradients (dO, dq, dk, dv) arrive after the
  // MLP's saved tensors and n2 are gone.
  b.workspace = tokens * (h + 2 * f) * e / t;
  b.selectiveWorkspace = b.workspace;
  // The fused norm keeps only its input and inverse RMS, so rebuilding it
  // drops n1 and n2 (the products' inputs) and the two statistics; the fused
  // gate keeps its inputs, so rebuilding it drops only the product.
  b.normSaving = tokens * (2 * h + 2) * e / t;
  b.normRebuild = tokens * (h + 1) * e / t;
  b.gateSaving = tokens * f * e / t;
  b.gateRebuild = b.gateSaving;
  return b;
}

double chunkedHeadBytes(const model::ModelConfig& model, const ParallelConfig& parallel) {
  const double tokens = d(model.batch) * d(model.seq);
  const double chunk = std::min(tokens, d(kHeadChunkRows));
  // At the head's backward: one chunk of logits turned into its gradient in
  // place, the row log-sum-exps, and the head's two gradients: the normed
  // hidden states' and the output weight's (vocab x dim). The fused head
  // forms them in forward and holds them until backward scales them; the
  // rebuilt head fills them chunk by chunk in backward. Either way all three
  // are alive at once.
  return (chunk * d(model.vocab) + tokens + tokens * d(model.dim) + d(model.vocab) * d(model.dim)) *
         4.0 / d(parallel.tp);
}

double compiledEdgeActivationBytes(const model::ModelConfig& model,
                                   const ParallelConfig& parallel) {
  const double tokens = d(model.batch) * d(model.seq);
  // The fused final norm keeps its input and one inverse RMS per row; its
  // output is what the head keeps. Token ids are int64.
  return tokens * ((2 * d(model.dim) + 1) * 4.0 + 8) / d(parallel.tp);
}

}  // namespace tb::memory::detail
