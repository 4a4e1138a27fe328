// The step walk. The peak of a training step is not a sum of every term: the
// logits die before the blocks' backward starts, each block's activations die
// as its backward finishes while (in the engine) its gradients are born, and
// the optimizer step runs with no activations at all. Walking those points
// and taking the largest is what keeps small models (where the head and the
// optimizer dominate) and large ones (where activations dominate) both right.
#include "tb/memory/predictor.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "memory_terms.hpp"

namespace tb::memory {
namespace {

using detail::BlockBytes;

struct Stage {
  bool first = true;
  bool last = true;
  std::int64_t inFlight = 1;  ///< micro-batches whose activations it holds (1F1B)
};

struct Phase {
  MemoryBreakdown breakdown;
  std::string name;
  /// Sharded gradients born by this point (torchtitan): they take back the
  /// blocks the previous step's gradients left in the allocator's cache.
  double shardedGradients = 0;
};

std::uint64_t bytes(double value) { return static_cast<std::uint64_t>(std::llround(value)); }

/// Whether block `layer` is rebuilt whole in backward from its own input.
bool recomputesBlock(const RecomputePolicy& policy, std::int64_t layer) {
  switch (policy.kind) {
    case RecomputeKind::Full: return true;
    case RecomputeKind::Layers: return layer < policy.layers;
    case RecomputeKind::Every: return layer % policy.layers == 0;
    case RecomputeKind::None:
    case RecomputeKind::Selective:
    case RecomputeKind::Op:
    case RecomputeKind::Uniform: break;
  }
  return false;
}

/// The `head` module asked for where it changes the step (the plain head's
/// logits become one chunk; one more head product).
bool rebuildsPlainHead(const PredictionInput& input) {
  return (selectiveModules(input.recompute) & model::kOutputHead) != 0 &&
         detail::headModuleChangesStep(input.profile, input.parallel, input.compiledStep);
}

double storedBytes(const RecomputePolicy& policy, const BlockBytes& block, std::int64_t layer) {
  if (recomputesBlock(policy, layer)) return block.checkpoint;
  if (policy.kind == RecomputeKind::Op) return block.perOp;
  // A uniform chunk keeps its first block's input and nothing else.
  if (policy.kind == RecomputeKind::Uniform) {
    return layer % policy.layers == 0 ? block.checkpoint : 0.0;
  }
  const std::uint8_t modules = selectiveModules(policy);
  double stored = block.kept;
  if ((modules & model::kCoreAttention) != 0) stored -= block.kept - block.selective;
  if ((modules & model::kNorms) != 0) stored -= block.normSaving;
  if ((modules & model::kMlpActivation) != 0) stored -= block.gateSaving;
  return stored;
}

/// What is alive again while a block's rebuilt modules run in backward; they
/// run one at a time, so the largest counts.
double rebuildBytes(const RecomputePolicy& policy, const BlockBytes& block) {
  const std::uint8_t modules = selectiveModules(policy);
  double bytes = 0;
  if ((modules & model::kCoreAttention) != 0) bytes = std::max(bytes, block.attentionCore);
  if ((modules & model::kNorms) != 0) bytes = std::max(bytes, block.normRebuild);
  if ((modules & model::kMlpActivation) != 0) bytes = std::max(bytes, block.gateRebuild);
  return bytes;
}

/// The transient of rebuilding in backward what block `layer` did not keep.
double rebuiltBytes(const RecomputePolicy& policy, const BlockBytes& block, std::int64_t layer) {
  if (recomputesBlock(policy, layer)) return block.kept - block.checkpoint;
  switch (policy.kind) {
    case RecomputeKind::Op: return std::max(0.0, block.kept - block.perOp);
    case RecomputeKind::Uniform:
      // The chunk is rebuilt at once; its blocks above `layer` are done.
      return static_cast<double>(layer % policy.layers + 1) * block.kept - block.checkpoint;
    case RecomputeKind::None:
    case RecomputeKind::Selective:
    case RecomputeKind::Layers:
    case RecomputeKind::Full:
    case RecomputeKind::Every: break;
  }
  return rebuildBytes(policy, block);
}

bool rebuildsWhole(const RecomputePolicy& policy, std::int64_t layer) {
  return recomputesBlock(policy, layer) || policy.kind == RecomputeKind::Op ||
         policy.kind == RecomputeKind::Uniform;
}

/// What the caching allocator holds beyond the phase's tensors.
/// `cachedGradients`: the previous step's gradients, freed by zero_grad as
/// many small blocks that this step's large tensors cannot reuse until this
/// step's own gradients take them back (torchtitan).
void finish(Phase& phase, const PredictionInput& input, double fixed, double cachedGradients,
            double collectiveCache) {
  MemoryBreakdown& b = phase.breakdown;
  b.overhead = bytes(fixed);
  const bool compiled = input.compiledStep;
  const double slack = detail::allocatorSlackFraction(input.profile, compiled);
  if (input.profile == Profile::Torchtitan) {
    const double cached =
        std::max(0.0, cachedGradients - phase.shardedGradients) + collectiveCache;
    b.allocatorCache = bytes(cached + slack * (static_cast<double>(b.allocated()) + cached));
    return;
  }
  const double dynamic = static_cast<double>(b.activations + b.logits + b.recompute + b.workspace);
  b.allocatorCache = bytes(slack * dynamic);
}

BlockBytes layerBytes(const PredictionInput& input) {
  BlockBytes block = detail::usesCompiledStep(input.profile, input.parallel, input.compiledStep)
                         ? detail::compiledBlockBytes(input.model, input.parallel)
                         : detail::blockBytes(input.model, input.parallel, input.profile,
                                              input.profile == Profile::Engine && input.gqaInPlace,
                                              selectiveModules(input.recompute));
  if (input.profile != Profile::Engine) {
    block.perOp = detail::opCheckpointBytes(input.model, input.parallel, input.float8);
  }
  return block;
}

Phase walkStage(const PredictionInput& input, const Stage& stage, std::int64_t stageLayers,
                std::int64_t& shardParams) {
  const model::ModelConfig& m = input.model;
  const ParallelConfig& p = input.parallel;
  const auto counts = detail::paramCounts(m);
  const double tp = static_cast<double>(p.tp);
  const double headParams = static_cast<double>(counts.embedding + m.dim);
  const double shard =
      (static_cast<double>(stageLayers * counts.block) +
       (stage.first ? static_cast<double>(counts.embedding) : 0.0) +
       (stage.last ? headParams : 0.0)) / tp;
  shardParams = static_cast<std::int64_t>(std::llround(shard));

  const auto state = detail::stateBytesPerParam(input.profile, p);
  const bool compiled = detail::usesCompiledStep(input.profile, p, input.compiledStep);
  const BlockBytes block = layerBytes(input);
  const bool torchtitan = input.profile == Profile::Torchtitan;
  // The compiled step's optimizer works over flat gradient buffers, which
  // exist for the whole step like the cluster frameworks' grad buckets.
  // So do the tuned runtime's flat gradients, compiled or not. FSDP2 under
  // torchtitan makes each block's sharded gradients at its reduce-scatter.
  const bool preallocatedGrads =
      (input.profile != Profile::Engine && !torchtitan) || compiled || input.flatGradients;
  // torchtitan with PP does not reshard after forward (the stage's 16-bit
  // parameters stay gathered) and accumulates the stage's unsharded fp32
  // gradients over the micro-batches, reduce-scattered after the last one.
  const bool stagedFsdp = torchtitan && p.pp > 1 && p.zero == 3;
  const double unshardedGrads = stagedFsdp ? 4.0 * shard : 0.0;
  // Data parallelism over per-tensor gradients (the engine's stock runtime)
  // sums them in a communication buffer, alive all run, as DDP's default
  // buckets are: every gradient but the embedding's, whose touched rows
  // travel on their own at backward's end. Flat gradients are summed in place.
  const double embeddingShard = stage.first ? static_cast<double>(counts.embedding) / tp : 0.0;
  const double commBuffer = input.profile == Profile::Engine && p.dp > 1 && !preallocatedGrads
                                ? 4.0 * (shard - embeddingShard)
                                : 0.0;
  const double fixed = detail::fixedOverheadBytes(m, p, input.profile);
  const double cachedGradients = torchtitan ? state.gradients * shard : 0.0;
  const double collectiveCache = torchtitan ? detail::collectiveCacheBytes(m, p) : 0.0;

  MemoryBreakdown base;
  const double gathered = stagedFsdp ? static_cast<double>(bytesOf(p.dtype)) * shard
                                     : detail::gatheredWeightBytes(counts, p, input.profile);
  base.weights = bytes(state.weights * shard + gathered);
  base.optimizer = bytes(state.optimizer * shard);
  const double allGrads = state.gradients * shard;

  std::vector<double> stored;
  double storedSum = 0;
  for (std::int64_t layer = 0; layer < stageLayers; ++layer) {
    stored.push_back(storedBytes(input.recompute, block, layer));
    storedSum += stored.back();
  }
  const double othersInFlight = static_cast<double>(stage.inFlight - 1) * storedSum;
  // Between torch.distributed.pipelining's stages every micro-batch in
  // flight keeps the input it received and the output it sent until its
  // gradient comes back. The first stage is modelled as the envelope of
  // stages 0 and 1 (ceil(L/p) blocks, the embedding, p micro-batches in
  // flight), so both count. The other profiles keep their own counts.
  const auto boundary = [&](std::int64_t inFlight) {
    return torchtitan && stage.first && p.pp > 1
               ? 2.0 * static_cast<double>(inFlight) * block.checkpoint
               : 0.0;
  };
  // FSDP2 reduce-scatters a block's gradients from one flat buffer in the
  // reduce dtype (fp32) copied from them: one block's unsharded gradients
  // beside the block being differentiated.
  const double reduceScatterInput =
      torchtitan && p.zero == 3 ? 4.0 * static_cast<double>(counts.block) / tp : 0.0;

  std::vector<Phase> phases;
  if (stage.last) {
    Phase head{base, "head backward"};
    const double edge = compiled ? detail::compiledEdgeActivationBytes(m, p)
                                 : detail::edgeActivationBytes(m, p, input.profile);
    head.breakdown.activations = bytes(othersInFlight + storedSum + edge + boundary(1));
    const bool chunkedHead = compiled || rebuildsPlainHead(input);
    head.breakdown.logits =
        bytes(chunkedHead  ? detail::chunkedHeadBytes(m, p)
              : torchtitan ? detail::torchtitanLogitsBytes(m, p, input.frameworkVersion)
                           : detail::logitsBytes(m, p, input.profile));
    // The engine's head gradients are born after the logits' temporaries die.
    head.breakdown.gradients =
        bytes((preallocatedGrads ? allGrads : 0.0) + commBuffer + unshardedGrads);
    head.shardedGradients = preallocatedGrads ? allGrads : 0.0;
    phases.push_back(head);
  }
  // One micro-batch's backward, block by block, with `inFlight` micro-batches
  // holding activations. Under torchtitan's staged FSDP the first backward
  // of a step forms the unsharded gradients block by block; every later one
  // finds them all accumulated but one micro-batch fewer in flight, and the
  // sharded gradients are born only at the last, when little else is.
  const auto backward = [&](std::int64_t inFlight, bool accumulated, const std::string& suffix) {
    const double others = static_cast<double>(inFlight - 1) * storedSum;
    double below = storedSum;  // stored bytes of this micro-batch's blocks 0..layer
    for (std::int64_t layer = stageLayers - 1; layer >= 0; --layer) {
      Phase phase{base, "layer " + std::to_string(layer) + " backward" + suffix};
      phase.breakdown.activations = bytes(others + below + boundary(inFlight));
      phase.breakdown.recompute = bytes(rebuiltBytes(input.recompute, block, layer));
      phase.breakdown.workspace = bytes(
          (rebuildsWhole(input.recompute, layer) ? block.workspace : block.selectiveWorkspace) +
          reduceScatterInput);
      const double born = (stage.last ? headParams : 0.0) +
                          static_cast<double>((stageLayers - layer) * counts.block);
      const double sharded =
          preallocatedGrads ? allGrads : stagedFsdp ? 0.0 : state.gradients * born / tp;
      const double unsharded = accumulated ? unshardedGrads : stagedFsdp ? 4.0 * born / tp : 0.0;
      phase.breakdown.gradients = bytes(sharded + commBuffer + unsharded);
      phase.shardedGradients = sharded;
      phases.push_back(phase);
      below -= stored[static_cast<std::size_t>(layer)];
    }
  };
  if (stagedFsdp) {
    backward(stage.inFlight, false, " (first micro-batch)");
    if (stage.inFlight > 1) backward(stage.inFlight - 1, true, " (later micro-batches)");
  } else {
    backward(stage.inFlight, false, "");
  }
  Phase step{base, "optimizer step"};
  step.breakdown.gradients = bytes(allGrads + commBuffer);
  step.shardedGradients = allGrads;
  // The fused clipped AdamW updates the flat buffers in place: no temporaries.
  step.breakdown.optimizer +=
      bytes(compiled ? 0.0
                     : detail::optimizerStepBytes(counts, shardParams, p, input.profile,
                                                  input.flatGradients));
  phases.push_back(step);

  for (Phase& phase : phases) finish(phase, input, fixed, cachedGradients, collectiveCache);
  return *std::max_element(phases.begin(), phases.end(), [](const Phase& a, const Phase& b) {
    return a.breakdown.total() < b.breakdown.total();
  });
}

Status checkLayout(const PredictionInput& input, std::int64_t stageLayers) {
  const model::ModelConfig& m = input.model;
  const ParallelConfig& p = input.parallel;
  const auto bad = [](const std::string& message) {
    return makeError(ErrorKind::BadInput, message);
  };
  if (m.heads % p.tp != 0 || (m.kvHeads % p.tp != 0 && p.tp % m.kvHeads != 0)) {
    return bad("--tp: " + std::to_string(p.tp) + " ranks cannot split " +
               std::to_string(m.heads) + " query heads and " + std::to_string(m.kvHeads) +
               " key/value heads evenly");
  }
  if ((selectiveModules(input.recompute) & model::kOutputHead) != 0 &&
      input.profile != Profile::Engine) {
    return bad("--recompute: the head module is this engine's chunked output head; the " +
               toString(input.profile) + " profile has no such module (modules there: "
               "core_attn, layernorm, mlp_act)");
  }
  const bool torchtitan = input.profile == Profile::Torchtitan;
  if (input.compiledStep && input.profile != Profile::Engine && !torchtitan) {
    return bad("--compile: on describes this engine's compiled step or torchtitan's "
               "torch.compile, not the " + toString(input.profile) +
               " profile (fused attention there is --attention flash)");
  }
  if (input.float8 && !torchtitan) {
    return bad("--float8: torchtitan's float8 linears; the " + toString(input.profile) +
               " profile does not model them");
  }
  if (input.parallel.asyncTp && (!torchtitan || p.tp < 2)) {
    return bad("--async-tp: torchtitan's async tensor parallelism, which needs the torchtitan "
               "profile and --tp 2 or more");
  }
  const RecomputeKind kind = input.recompute.kind;
  const bool clusterOnly = kind == RecomputeKind::Op || kind == RecomputeKind::Every ||
                           kind == RecomputeKind::Uniform;
  if (clusterOnly && input.profile == Profile::Engine) {
    return bad("--recompute: " + toString(input.recompute) +
               " is a cluster framework's policy; the engine trains with none, selective, "
               "full and layers:K");
  }
  if (p.cp > 1 && input.profile == Profile::Engine) {
    return bad("--cp: the engine has no context parallelism");
  }
  if (m.seq % p.cp != 0) {
    return bad("--cp: " + std::to_string(p.cp) + " ranks cannot split a sequence of " +
               std::to_string(m.seq) + " tokens evenly");
  }
  if (kind == RecomputeKind::Uniform && input.recompute.layers > stageLayers) {
    return bad("--recompute: uniform chunks of " + std::to_string(input.recompute.layers) +
               " blocks are more than a pipeline stage holds (" + std::to_string(stageLayers) +
               ")");
  }
  if (input.profile == Profile::Engine && p.zero > 1) {
    return bad("--zero: stage " + std::to_string(p.zero) +
               " is not one the engine trains with (0: whole moments on every rank, 1: the "
               "moments sharded over the ranks)");
  }
  if (p.pp > m.layers) {
    return bad("--pp: " + std::to_string(p.pp) + " stages for only " + std::to_string(m.layers) +
               " layers");
  }
  if (input.recompute.kind == RecomputeKind::Layers && input.recompute.layers > stageLayers) {
    return bad("--recompute: layers:" + std::to_string(input.recompute.layers) +
               " asks for more blocks than a pipeline stage holds (" +
               std::to_string(stageLayers) + ")");
  }
  return {};
}

std::int64_t blocksPerStage(const PredictionInput& input) {
  return (input.model.layers + input.parallel.pp - 1) / input.parallel.pp;
}

}  // namespace

Expected<MemoryPrediction> predictMemory(const PredictionInput& input) {
  if (Status valid = model::validate(input.model); !valid) return valid.error();
  if (Status valid = validate(input.parallel); !valid) return valid.error();
  const std::int64_t stageLayers = blocksPerStage(input);
  if (Status valid = checkLayout(input, stageLayers); !valid) return valid.error();

  // Context parallelism: every rank holds seq/cp tokens of each sequence,
  // which is all the activation and loss terms see.
  PredictionInput local = input;
  local.model.seq = input.model.seq / input.parallel.cp;

  std::vector<Stage> stages;
  if (input.parallel.pp == 1) {
    stages.push_back({true, true, 1});
  } else {
    stages.push_back({true, false, input.parallel.pp});  // holds p micro-batches in 1F1B
    stages.push_back({false, true, 1});
  }
  MemoryPrediction prediction;
  prediction.params = model::parameterCount(input.model);
  prediction.stageLayers = stageLayers;
  for (const Stage& stage : stages) {
    std::int64_t shardParams = 0;
    const Phase peak = walkStage(local, stage, stageLayers, shardParams);
    if (peak.breakdown.total() >= prediction.breakdown.total()) {
      prediction.breakdown = peak.breakdown;
      prediction.peakPhase = (stages.size() > 1 ? (stage.first ? "first stage, " : "last stage, ")
                                                : std::string()) + peak.name;
      prediction.paramsPerRank = shardParams;
    }
  }
  const BlockBytes block = layerBytes(local);
  prediction.perLayer = {bytes(block.kept), bytes(block.selective), bytes(block.checkpoint)};
  prediction.totalBytes = prediction.breakdown.total();
  prediction.allocatedBytes = prediction.breakdown.allocated();
  prediction.timeRatio = relativeStepTime(input);
  return prediction;
}

double allocatorSlack(Profile profile, bool compiled) {
  return detail::allocatorSlackFraction(profile, compiled);
}

double relativeStepTime(const PredictionInput& input) {
  const model::ModelConfig& m = input.model;
  const auto counts = detail::paramCounts(m);
  const double s = static_cast<double>(m.seq);
  const double h = static_cast<double>(m.dim);
  // Forward FLOPs per token: 2 per weight, plus QK^T and attention-times-V.
  const double coreForward = 4.0 * h * s;
  const double blockForward = 2.0 * static_cast<double>(counts.block) + coreForward;
  const double headForward = 2.0 * static_cast<double>(counts.embedding);
  const std::int64_t stageLayers = blocksPerStage(input);
  const double layers = static_cast<double>(stageLayers);
  // Backward costs twice the forward; the head runs on the last stage only.
  const double step = 3.0 * (layers * blockForward + (input.parallel.pp == 1 ? headForward : 0));
  // Rebuilt norms and gates cost their elementwise work, priced like the
  // products per element operation (RMSNorm about 4 per element, the gate 5):
  // small, but not free, so keeping everything wins whenever it fits.
  const double normForward = 2.0 * 4.0 * h;
  const double gateForward = 5.0 * static_cast<double>(m.ffn);
  std::int64_t full = 0;  // blocks rebuilt whole
  for (std::int64_t layer = 0; layer < stageLayers; ++layer) {
    if (recomputesBlock(input.recompute, layer) ||
        input.recompute.kind == RecomputeKind::Uniform) {
      ++full;
    }
  }
  const std::uint8_t modules = selectiveModules(input.recompute);
  double perBlock = 0;
  // Flash attention's backward recomputes the scores anyway. The engine's
  // plain grouped attention rebuilds only the scores product, not the
  // weighted sum (groupedAttentionRebuiltInBackward); elsewhere both run again.
  if ((modules & model::kCoreAttention) != 0 &&
      (input.profile == Profile::Engine || !input.parallel.flashAttention)) {
    const bool scoresOnly =
        input.profile == Profile::Engine && input.gqaInPlace && !input.compiledStep;
    perBlock += scoresOnly ? coreForward / 2 : coreForward;
  }
  if ((modules & model::kNorms) != 0) perBlock += normForward;
  if ((modules & model::kMlpActivation) != 0) perBlock += gateForward;
  // Per-op checkpointing reruns wk, wo and w3 (and the cheap elementwise ops).
  if (input.recompute.kind == RecomputeKind::Op) {
    const double kv = static_cast<double>(m.kvHeads) * h / static_cast<double>(m.heads);
    perBlock += 2.0 * (h * kv + h * h + h * static_cast<double>(m.ffn)) + normForward +
                gateForward;
  }
  // The rebuilt head runs its product once more; the compiled step's fused
  // head is chunked already and forms its gradients in forward.
  const bool headAgain = input.parallel.pp == 1 && rebuildsPlainHead(input);
  const double extra = static_cast<double>(full) * blockForward +
                       static_cast<double>(stageLayers - full) * perBlock +
                       (headAgain ? headForward : 0.0);
  return 1.0 + extra / step;
}

}  // namespace tb::memory
