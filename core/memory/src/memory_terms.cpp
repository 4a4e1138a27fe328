// The terms of the predictor. Element counts follow the Llama block as the
// engine (core/engine/src/decoder.cpp and ops/) and the cluster frameworks
// run it; Korthikanti et al. 2022 gives the method (count what autograd
// saves), Megatron's and DeepSpeed's estimators the bytes per parameter.
// docs/MEMORY.md derives each count.
#include "memory_terms.hpp"

#include <algorithm>

#include "tb/model/recompute_modules.hpp"
#include "tb/common/units.hpp"

namespace tb::memory::detail {
namespace {

bool sixteenBit(const ParallelConfig& parallel) { return parallel.dtype != DType::Fp32; }

}  // namespace

StateBytes stateBytesPerParam(Profile profile, const ParallelConfig& parallel) {
  StateBytes bytes{4, 4, 8};  // fp32 weights, fp32 grads, two fp32 Adam moments
  const bool half = sixteenBit(parallel);
  if (profile == Profile::Megatron && half) {
    // bf16 params, fp32 main grads, fp32 main params + Adam (Megatron's table:
    // 18 bytes; fp16 grads are 2 bytes and the optimizer keeps an fp32 copy).
    bytes = parallel.dtype == DType::Bf16 ? StateBytes{2, 4, 12} : StateBytes{2, 2, 16};
  } else if (profile == Profile::DeepSpeed && half) {
    // "2 grads16 + 4 grads32 + 4 params32 + 8 Adam" on top of 2P fp16 params.
    bytes = StateBytes{2, 6, 12};
  } else if ((profile == Profile::Fsdp || profile == Profile::Torchtitan) && half &&
             parallel.zero == 0) {
    // DDP under autocast: fp32 params plus the bf16 weight copies autocast caches.
    bytes = StateBytes{6, 4, 8};
  }
  // Context-parallel ranks hold the same parameters as their data-parallel
  // peers, so ZeRO / FSDP shards over both (torchtitan's dp_shard x cp mesh,
  // Megatron's data-parallel-with-context-parallel group).
  const double dp = d(parallel.dp * parallel.cp);
  if (parallel.zero >= 1) bytes.optimizer /= dp;
  // Megatron's distributed optimizer keeps the whole grad buffer at stage 2.
  const bool shardsGrads =
      parallel.zero >= 3 || (parallel.zero == 2 && profile != Profile::Megatron);
  if (shardsGrads) bytes.gradients /= dp;
  if (parallel.zero >= 3) bytes.weights /= dp;
  return bytes;
}

ParamCounts paramCounts(const model::ModelConfig& model) {
  ParamCounts counts;
  counts.total = model::parameterCount(model);
  counts.embedding = model.vocab * model.dim;
  counts.block = (counts.total - 2 * counts.embedding - model.dim) / model.layers;
  counts.largestTensor = std::max(counts.embedding, model.ffn * model.dim);
  return counts;
}

BlockBytes blockBytes(const model::ModelConfig& model, const ParallelConfig& parallel,
                      Profile profile, bool gqaInPlace, std::uint8_t selectiveModules) {
  const double tokens = d(model.batch) * d(model.seq);
  const double h = d(model.dim);
  const double f = d(model.ffn);
  const double kv = d(model.kvHeads) * (h / d(model.heads));
  const double scores = d(model.heads) * d(model.seq);  // softmax row per token
  const double t = d(parallel.tp);
  BlockBytes b;
  if (profile == Profile::Engine) {
    const double e = parallel.dtype == DType::Fp32 ? 4.0 : 2.0;
    // x; per RMSNorm x² (kept by LibTorch 1.13's mean backward), the
    // normalised and the weighted product (3h, twice); queries copied by
    // matmul, K and V repeated to the query heads, attention output, the
    // residual h; SwiGLU keeps w1·x, silu, w3·x and their product; the
    // softmax output; one rsqrt per norm; and each block's bool causal mask.
    const double mask = d(model.seq) * d(model.seq);
    // Reading K and V in place saves their repeated copies (2h - 2kv per
    // token) but keeps the mask repeated over each KV head's query group.
    const double groups = d(model.heads) / d(model.kvHeads);
    const double kvCopies = gqaInPlace ? 2 * kv : 2 * h;
    const double keptMask = gqaInPlace ? groups * mask : mask;
    b.kept = (tokens * (10 * h + kvCopies + 4 * f + scores + 2) * e + keptMask) / t;
    // The wrapped core keeps its inputs (roped q, k, v) instead of its insides.
    b.selective = tokens * (10 * h + 2 * kv + 4 * f + 2) * e / t;
    b.checkpoint = tokens * h * e / t;
    b.attentionCore = b.kept - b.selective;
    // Backward runs SwiGLU first (the gradient in, w2's and the gate's
    // gradients: h + 2f), then the attention core, by when SwiGLU's four
    // tensors, the second norm's three, the residual and the attention output
    // are freed (4f + 5h + 1) and the gradients of the scores, of the softmax
    // input and of q and k are alive (2·a·s + 2h). The larger moment counts.
    const double freed = 4 * f + 5 * h + 1;
    b.workspace = tokens * std::max(h + 2 * f, 2 * scores + 2 * h - freed) * e / t;
    // Under selective modules a rebuilt second norm (3h + 1) and a rebuilt
    // gate (silu and the product, 2f) were never kept, so their freeing gives
    // nothing back; and the hand-written backward of a rebuilt grouped core
    // (RebuiltGroupedAttention) writes the softmax's gradient over dP, one
    // buffer of scores beside the rebuilt probabilities rather than two.
    const bool norms = (selectiveModules & model::kNorms) != 0;
    const bool gate = (selectiveModules & model::kMlpActivation) != 0;
    const bool handwrittenCore = gqaInPlace && (selectiveModules & model::kCoreAttention) != 0;
    const double selectiveFreed = freed - (norms ? 3 * h + 1 : 0) - (gate ? 2 * f : 0);
    const double gradientScores = handwrittenCore ? scores : 2 * scores;
    b.selectiveWorkspace =
        tokens * std::max(h + 2 * f, gradientScores + 2 * h - selectiveFreed) * e / t;
    // Rebuilt norms drop x², the normalised and the weighted product and the
    // rsqrt (the products kept the last); the inputs x and h stay, as the
    // rebuild's inputs. A rebuilt gate drops silu and the product; w1·x and
    // w3·x stay. While one is rebuilt, its insides are alive again.
    b.normSaving = tokens * (6 * h + 2) * e / t;
    b.normRebuild = tokens * (3 * h + 1) * e / t;
    b.gateSaving = tokens * 2 * f * e / t;
    b.gateRebuild = b.gateSaving;
    return b;
  }
  const double e = d(bytesOf(parallel.dtype));
  const double sp = parallel.sequenceParallel ? t : 1.0;
  // Norm inputs and outputs (x, n1, h, n2) are replicated over TP unless SP.
  const double replicated = tokens * 4 * h * e / sp;
  // Megatron's fused SwiGLU keeps fc1's output and fc2's input (3f); eager
  // HF blocks under FSDP / DeepSpeed keep w1·x, w3·x, silu and the product.
  const double mlp = profile == Profile::Megatron ? 3 * f : 4 * f;
  const double split = tokens * (2 * h + 2 * kv + mlp) * e / t;
  // Flash attention keeps only the fp32 log-sum-exp per head instead of scores.
  const double core =
      parallel.flashAttention ? tokens * d(model.heads) * 4 / t : tokens * scores * e / t;
  b.kept = replicated + split + core;
  b.selective = parallel.flashAttention ? b.kept : replicated + split;
  b.checkpoint = tokens * h * e / sp;
  b.attentionCore = parallel.flashAttention ? 0.0 : 2 * tokens * scores * e / t;
  b.workspace = tokens * (2 * h + 2 * f / t) * e;
  b.selectiveWorkspace = b.workspace;
  // Megatron-Core's layernorm module drops both norms' outputs; its mlp_act
  // the activation's output (fc2's input; eager blocks also silu's).
  b.normSaving = tokens * 2 * h * e / sp;
  b.normRebuild = b.normSaving / 2;
  b.gateSaving = tokens * (profile == Profile::Megatron ? f : 2 * f) * e / t;
  b.gateRebuild = b.gateSaving;
  return b;
}

double logitsBytes(const model::ModelConfig& model, const ParallelConfig& parallel,
                   Profile profile) {
  const double perToken = d(model.vocab) / d(parallel.tp);
  const double tokens = d(model.batch) * d(model.seq);
  double bytesPerEntry = 0;
  if (profile == Profile::Engine) {
    // The loss is nll_loss(log_softmax(x)), as in PyTorch: at its backward
    // the fp32 logits, the saved log-softmax output and the gradient that
    // nll_loss's backward scatters into are live at once (plus the bf16
    // logits themselves under bf16).
    bytesPerEntry = parallel.dtype == DType::Fp32 ? 12.0 : 14.0;
  } else if (!sixteenBit(parallel)) {
    bytesPerEntry = 12;  // fp32 logits, log-softmax output, its gradient
  } else if (profile == Profile::Megatron) {
    bytesPerEntry = 6;  // bf16 logits + the fused loss's fp32 copy, graded in place
  } else {
    bytesPerEntry = 14;  // bf16 logits, .float(), saved log-softmax, fp32 gradient
  }
  return tokens * perToken * bytesPerEntry;
}

double edgeActivationBytes(const model::ModelConfig& model, const ParallelConfig& parallel,
                           Profile profile) {
  const double tokens = d(model.batch) * d(model.seq);
  const double h = d(model.dim);
  if (profile == Profile::Engine) {
    // Final norm: its input, x², normalised and weighted outputs; token ids (int64).
    return tokens * (4 * h * (parallel.dtype == DType::Fp32 ? 4.0 : 2.0) + 8) / d(parallel.tp);
  }
  const double sp = parallel.sequenceParallel ? d(parallel.tp) : 1.0;
  return tokens * (3 * h * d(bytesOf(parallel.dtype)) / sp + 8);
}

double gatheredWeightBytes(const ParamCounts& counts, const ParallelConfig& parallel,
                           Profile profile) {
  if (parallel.dp * parallel.cp <= 1) return 0;
  const double t = d(parallel.tp);
  const double half = d(bytesOf(parallel.dtype));
  if (profile == Profile::DeepSpeed && parallel.zero == 3) {
    // DeepSpeed's LL term: 4 bytes x the largest module's parameters.
    return 4.0 * d(counts.largestTensor) / t;
  }
  const bool fsdp = profile == Profile::Fsdp || profile == Profile::Torchtitan;
  if ((fsdp || profile == Profile::Megatron) && parallel.zero == 3) {
    // The block being computed and the one prefetched, plus the root module
    // (embedding, head), which FSDP2 does not reshard after forward (nor
    // torchtitan the last block, whose all-gather backward would redo).
    const double root = fsdp ? 2.0 * d(counts.embedding) : 0.0;
    return half * (2.0 * d(counts.block) + root) / t;
  }
  if (fsdp && parallel.zero == 2) {
    return half * d(counts.total) / t;  // unsharded 16-bit params kept between passes
  }
  return 0;
}

double optimizerStepBytes(const ParamCounts& counts, std::int64_t shardParams,
                          const ParallelConfig& parallel, Profile profile, bool flatUpdate) {
  switch (profile) {
    case Profile::Engine:
      // Flat buffers: sqrt(v) of the whole buffer, divided in place. Per
      // tensor: sqrt(v) and its division by the bias correction, one tensor
      // at a time.
      // ZeRO-1 updates only this rank's shard of the flat buffer.
      return flatUpdate ? 4.0 * d(shardParams) / (parallel.zero >= 1 ? d(parallel.dp) : 1.0)
                        : 2.0 * 4.0 * d(counts.largestTensor) / d(parallel.tp);
    case Profile::Fsdp:
    case Profile::Torchtitan: {
      // torch.optim.AdamW (foreach) materialises sqrt(v) for every shard at once.
      const double shard =
          parallel.zero >= 1 ? d(shardParams) / d(parallel.dp * parallel.cp) : d(shardParams);
      return 4.0 * shard;
    }
    case Profile::Megatron:
    case Profile::DeepSpeed: return 0;  // fused Adam kernels update in place
  }
  return 0;
}

double fixedOverheadBytes(const model::ModelConfig& model, const ParallelConfig& parallel,
                          Profile profile) {
  const double hd = d(model.dim) / d(model.heads);
  if (profile == Profile::Engine) {
    // Token rows (int64, seq+1 wide) and the RoPE cos/sin tables; under data
    // parallelism the fp32 [vocab] count of the embedding rows the ranks'
    // tokens touch, summed while forward runs (gradient_sync.hpp).
    const double touchedRows = parallel.dp > 1 ? 4 * d(model.vocab) : 0.0;
    return d(model.batch) * d(model.seq + 1) * 8 + 2 * d(model.seq) * (hd / 2) * 4 + touchedRows;
  }
  double bytes = 64 * kMiB;  // cuBLAS / cuDNN workspaces through the caching allocator
  if (profile == Profile::DeepSpeed && parallel.zero <= 2 && parallel.dp > 1) {
    // Reduce and all-gather buckets; HF's "auto" sizes them to hidden^2 elements.
    bytes += 2.0 * d(model.dim) * d(model.dim) * d(bytesOf(parallel.dtype));
  }
  return bytes;
}

}  // namespace tb::memory::detail
