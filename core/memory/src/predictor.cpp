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
    const double cached = std::max(0.0, cachedGradients - phase.shardedGradients) + collectiveCache;
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

/// What every phase of one stage's walk shares: the stage's parameter shard,
/// the gradient buffers that outlive the block walk, what every phase holds
/// whatever it runs, and what the stage's blocks store for backward.
struct StageTerms {
  Stage stage;
  std::int64_t layers = 0;  ///< blocks the stage holds
  detail::ParamCounts counts;
  double tp = 1;
  double headParams = 0;  ///< the output head and the final norm
  double shard = 0;       ///< the stage's parameters on this rank
  std::int64_t shardParams = 0;
  detail::StateBytes state;
  bool compiled = false;
  bool torchtitan = false;
  BlockBytes block;
  bool preallocatedGrads = false;
  bool stagedFsdp = false;
  double unshardedGrads = 0;
  double commBuffer = 0;
  double allGrads = 0;
  double reduceScatterInput = 0;
  MemoryBreakdown base;  ///< weights and optimizer state, alive in every phase
  double fixed = 0;
  double cachedGradients = 0;
  double collectiveCache = 0;
  std::vector<double> stored;  ///< stored bytes of each block for one micro-batch
  double storedSum = 0;
};

/// The stage's parameter shard on this rank, its state bytes per parameter
/// and what one of its blocks keeps.
StageTerms stageShard(const PredictionInput& input, const Stage& stage, std::int64_t stageLayers) {
  StageTerms terms;
  terms.stage = stage;
  terms.layers = stageLayers;
  terms.counts = detail::paramCounts(input.model);
  terms.tp = static_cast<double>(input.parallel.tp);
  terms.headParams = static_cast<double>(terms.counts.embedding + input.model.dim);
  terms.shard = (static_cast<double>(stageLayers * terms.counts.block) +
                 (stage.first ? static_cast<double>(terms.counts.embedding) : 0.0) +
                 (stage.last ? terms.headParams : 0.0)) /
                terms.tp;
  terms.shardParams = static_cast<std::int64_t>(std::llround(terms.shard));
  terms.state = detail::stateBytesPerParam(input.profile, input.parallel);
  terms.compiled = detail::usesCompiledStep(input.profile, input.parallel, input.compiledStep);
  terms.block = layerBytes(input);
  terms.torchtitan = input.profile == Profile::Torchtitan;
  return terms;
}

/// The gradient buffers whose size does not depend on the block being
/// differentiated, and the flags that say which exist.
void addGradientBuffers(StageTerms& terms, const PredictionInput& input) {
  const ParallelConfig& p = input.parallel;
  // The compiled step's optimizer works over flat gradient buffers, which
  // exist for the whole step like the cluster frameworks' grad buckets.
  // So do the tuned runtime's flat gradients, compiled or not. FSDP2 under
  // torchtitan makes each block's sharded gradients at its reduce-scatter.
  terms.preallocatedGrads = (input.profile != Profile::Engine && !terms.torchtitan) ||
                            terms.compiled || input.flatGradients;
  // torchtitan with PP does not reshard after forward (the stage's 16-bit
  // parameters stay gathered) and accumulates the stage's unsharded fp32
  // gradients over the micro-batches, reduce-scattered after the last one.
  terms.stagedFsdp = terms.torchtitan && p.pp > 1 && p.zero == 3;
  terms.unshardedGrads = terms.stagedFsdp ? 4.0 * terms.shard : 0.0;
  // Data parallelism over per-tensor gradients (the engine's stock runtime)
  // sums them in a communication buffer, alive all run, as DDP's default
  // buckets are: every gradient but the embedding's, whose touched rows
  // travel on their own at backward's end. Flat gradients are summed in place.
  const double embeddingShard =
      terms.stage.first ? static_cast<double>(terms.counts.embedding) / terms.tp : 0.0;
  terms.commBuffer = input.profile == Profile::Engine && p.dp > 1 && !terms.preallocatedGrads
                         ? 4.0 * (terms.shard - embeddingShard)
                         : 0.0;
  terms.allGrads = terms.state.gradients * terms.shard;
  // FSDP2 reduce-scatters a block's gradients from one flat buffer in the
  // reduce dtype (fp32) copied from them: one block's unsharded gradients
  // beside the block being differentiated.
  terms.reduceScatterInput = terms.torchtitan && p.zero == 3
                                 ? 4.0 * static_cast<double>(terms.counts.block) / terms.tp
                                 : 0.0;
}

/// What every phase holds whatever it runs: the weights (with the gathered
/// ones), the optimizer state, the fixed buffers and the allocator's caches.
/// Reads stagedFsdp, so it runs after addGradientBuffers.
void addResidentBytes(StageTerms& terms, const PredictionInput& input) {
  const ParallelConfig& p = input.parallel;
  const double gathered = terms.stagedFsdp
                              ? static_cast<double>(bytesOf(p.dtype)) * terms.shard
                              : detail::gatheredWeightBytes(terms.counts, p, input.profile);
  terms.base.weights = bytes(terms.state.weights * terms.shard + gathered);
  terms.base.optimizer = bytes(terms.state.optimizer * terms.shard);
  terms.fixed = detail::fixedOverheadBytes(input.model, p, input.profile);
  terms.cachedGradients = terms.torchtitan ? terms.state.gradients * terms.shard : 0.0;
  terms.collectiveCache = terms.torchtitan ? detail::collectiveCacheBytes(input.model, p) : 0.0;
}

/// What each of the stage's blocks stores for one micro-batch, and the sum.
void storeBlockActivations(StageTerms& terms, const PredictionInput& input) {
  for (std::int64_t layer = 0; layer < terms.layers; ++layer) {
    terms.stored.push_back(storedBytes(input.recompute, terms.block, layer));
    terms.storedSum += terms.stored.back();
  }
}

/// Between torch.distributed.pipelining's stages every micro-batch in
/// flight keeps the input it received and the output it sent until its
/// gradient comes back. The first stage is modelled as the envelope of
/// stages 0 and 1 (ceil(L/p) blocks, the embedding, p micro-batches in
/// flight), so both count. The other profiles keep their own counts.
double pipelineBoundaryBytes(const PredictionInput& input, const StageTerms& terms,
                             std::int64_t inFlight) {
  return terms.torchtitan && terms.stage.first && input.parallel.pp > 1
             ? 2.0 * static_cast<double>(inFlight) * terms.block.checkpoint
             : 0.0;
}

/// The last stage's head backward: every block's activations still stored
/// and the logits alive.
Phase headBackwardPhase(const PredictionInput& input, const StageTerms& terms) {
  const model::ModelConfig& m = input.model;
  const ParallelConfig& p = input.parallel;
  const double othersInFlight = static_cast<double>(terms.stage.inFlight - 1) * terms.storedSum;
  Phase head{terms.base, "head backward"};
  const double edge = terms.compiled ? detail::compiledEdgeActivationBytes(m, p)
                                     : detail::edgeActivationBytes(m, p, input.profile);
  head.breakdown.activations =
      bytes(othersInFlight + terms.storedSum + edge + pipelineBoundaryBytes(input, terms, 1));
  const bool chunkedHead = terms.compiled || rebuildsPlainHead(input);
  head.breakdown.logits =
      bytes(chunkedHead        ? detail::chunkedHeadBytes(m, p)
            : terms.torchtitan ? detail::torchtitanLogitsBytes(m, p, input.frameworkVersion)
                               : detail::logitsBytes(m, p, input.profile));
  // The engine's head gradients are born after the logits' temporaries die.
  head.breakdown.gradients = bytes((terms.preallocatedGrads ? terms.allGrads : 0.0) +
                                   terms.commBuffer + terms.unshardedGrads);
  head.shardedGradients = terms.preallocatedGrads ? terms.allGrads : 0.0;
  return head;
}

/// One micro-batch's backward through the stage's blocks.
struct BackwardPass {
  std::int64_t inFlight = 1;  ///< micro-batches holding activations
  bool accumulated = false;   ///< the staged FSDP gradients are all accumulated already
  const char* suffix = "";    ///< appended to each phase's name
};

/// One micro-batch's backward, block by block, with `inFlight` micro-batches
/// holding activations. Under torchtitan's staged FSDP the first backward
/// of a step forms the unsharded gradients block by block; every later one
/// finds them all accumulated but one micro-batch fewer in flight, and the
/// sharded gradients are born only at the last, when little else is.
void appendBlockBackwards(std::vector<Phase>& phases, const PredictionInput& input,
                          const StageTerms& terms, const BackwardPass& pass) {
  const BlockBytes& block = terms.block;
  const double others = static_cast<double>(pass.inFlight - 1) * terms.storedSum;
  double below = terms.storedSum;  // stored bytes of this micro-batch's blocks 0..layer
  for (std::int64_t layer = terms.layers - 1; layer >= 0; --layer) {
    Phase phase{terms.base, "layer " + std::to_string(layer) + " backward" + pass.suffix};
    phase.breakdown.activations =
        bytes(others + below + pipelineBoundaryBytes(input, terms, pass.inFlight));
    phase.breakdown.recompute = bytes(rebuiltBytes(input.recompute, block, layer));
    phase.breakdown.workspace =
        bytes((rebuildsWhole(input.recompute, layer) ? block.workspace : block.selectiveWorkspace) +
              terms.reduceScatterInput);
    const double born = (terms.stage.last ? terms.headParams : 0.0) +
                        static_cast<double>((terms.layers - layer) * terms.counts.block);
    const double sharded = terms.preallocatedGrads ? terms.allGrads
                           : terms.stagedFsdp      ? 0.0
                                                   : terms.state.gradients * born / terms.tp;
    const double unsharded = pass.accumulated   ? terms.unshardedGrads
                             : terms.stagedFsdp ? 4.0 * born / terms.tp
                                                : 0.0;
    phase.breakdown.gradients = bytes(sharded + terms.commBuffer + unsharded);
    phase.shardedGradients = sharded;
    phases.push_back(phase);
    below -= terms.stored[static_cast<std::size_t>(layer)];
  }
}

/// The optimizer step: every gradient born, no activations.
Phase optimizerStepPhase(const PredictionInput& input, const StageTerms& terms) {
  Phase step{terms.base, "optimizer step"};
  step.breakdown.gradients = bytes(terms.allGrads + terms.commBuffer);
  step.shardedGradients = terms.allGrads;
  // The fused clipped AdamW updates the flat buffers in place: no temporaries.
  step.breakdown.optimizer += bytes(
      terms.compiled ? 0.0
                     : detail::optimizerStepBytes(terms.counts, terms.shardParams, input.parallel,
                                                  input.profile, input.flatGradients));
  return step;
}

/// The heaviest phase of one stage's step (the first of equals); `shardParams`
/// gets the stage's parameters on this rank.
Phase walkStage(const PredictionInput& input, const Stage& stage, std::int64_t stageLayers,
                std::int64_t& shardParams) {
  StageTerms terms = stageShard(input, stage, stageLayers);
  shardParams = terms.shardParams;
  addGradientBuffers(terms, input);
  addResidentBytes(terms, input);
  storeBlockActivations(terms, input);

  std::vector<Phase> phases;
  if (stage.last) phases.push_back(headBackwardPhase(input, terms));
  if (terms.stagedFsdp) {
    appendBlockBackwards(
        phases, input, terms,
        {.inFlight = stage.inFlight, .accumulated = false, .suffix = " (first micro-batch)"});
    if (stage.inFlight > 1) {
      appendBlockBackwards(phases, input, terms,
                           {.inFlight = stage.inFlight - 1,
                            .accumulated = true,
                            .suffix = " (later micro-batches)"});
    }
  } else {
    appendBlockBackwards(phases, input, terms,
                         {.inFlight = stage.inFlight, .accumulated = false, .suffix = ""});
  }
  phases.push_back(optimizerStepPhase(input, terms));

  for (Phase& phase : phases) {
    finish(phase, input, terms.fixed, terms.cachedGradients, terms.collectiveCache);
  }
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
    return bad("--tp: " + std::to_string(p.tp) + " ranks cannot split " + std::to_string(m.heads) +
               " query heads and " + std::to_string(m.kvHeads) + " key/value heads evenly");
  }
  if ((selectiveModules(input.recompute) & model::kOutputHead) != 0 &&
      input.profile != Profile::Engine) {
    return bad("--recompute: the head module is this engine's chunked output head; the " +
               toString(input.profile) +
               " profile has no such module (modules there: "
               "core_attn, layernorm, mlp_act)");
  }
  const bool torchtitan = input.profile == Profile::Torchtitan;
  if (input.compiledStep && input.profile != Profile::Engine && !torchtitan) {
    return bad(
        "--compile: on describes this engine's compiled step or torchtitan's "
        "torch.compile, not the " +
        toString(input.profile) + " profile (fused attention there is --attention flash)");
  }
  if (input.float8 && !torchtitan) {
    return bad("--float8: torchtitan's float8 linears; the " + toString(input.profile) +
               " profile does not model them");
  }
  if (input.parallel.asyncTp && (!torchtitan || p.tp < 2)) {
    return bad(
        "--async-tp: torchtitan's async tensor parallelism, which needs the torchtitan "
        "profile and --tp 2 or more");
  }
  const RecomputeKind kind = input.recompute.kind;
  const bool clusterOnly =
      kind == RecomputeKind::Op || kind == RecomputeKind::Every || kind == RecomputeKind::Uniform;
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
               " asks for more blocks than a pipeline stage holds (" + std::to_string(stageLayers) +
               ")");
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
      prediction.peakPhase =
          (stages.size() > 1 ? (stage.first ? "first stage, " : "last stage, ") : std::string()) +
          peak.name;
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
    if (recomputesBlock(input.recompute, layer) || input.recompute.kind == RecomputeKind::Uniform) {
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
    perBlock += 2.0 * (h * kv + h * h + h * static_cast<double>(m.ffn)) + normForward + gateForward;
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
