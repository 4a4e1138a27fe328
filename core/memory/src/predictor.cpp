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
};

std::uint64_t bytes(double value) { return static_cast<std::uint64_t>(std::llround(value)); }

bool recomputesBlock(const RecomputePolicy& policy, std::int64_t layer) {
  return policy.kind == RecomputeKind::Full ||
         (policy.kind == RecomputeKind::Layers && layer < policy.layers);
}

/// The `head` module asked for where it changes the step (the plain head's
/// logits become one chunk; one more head product).
bool rebuildsPlainHead(const PredictionInput& input) {
  return (selectiveModules(input.recompute) & model::kOutputHead) != 0 &&
         detail::headModuleChangesStep(input.profile, input.parallel, input.compiledStep);
}

double storedBytes(const RecomputePolicy& policy, const BlockBytes& block, std::int64_t layer) {
  if (recomputesBlock(policy, layer)) return block.checkpoint;
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

void finish(MemoryBreakdown& b, double fixed, double fragmentation) {
  const double dynamic = static_cast<double>(b.activations + b.logits + b.recompute + b.workspace);
  b.overhead = bytes(fixed + fragmentation * dynamic);
}

BlockBytes layerBytes(const PredictionInput& input) {
  return detail::usesCompiledStep(input.profile, input.parallel, input.compiledStep)
             ? detail::compiledBlockBytes(input.model, input.parallel)
             : detail::blockBytes(input.model, input.parallel, input.profile,
                                  input.profile == Profile::Engine && input.gqaInPlace,
                                  selectiveModules(input.recompute));
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
  // The compiled step's optimizer works over flat gradient buffers, which
  // exist for the whole step like the cluster frameworks' grad buckets.
  // So do the tuned runtime's flat gradients, compiled or not.
  const bool preallocatedGrads = input.profile != Profile::Engine || compiled ||
                                 input.flatGradients;
  // Data parallelism over per-tensor gradients (the engine's stock runtime)
  // sums them in a communication buffer of every gradient, alive all run, as
  // DDP's default buckets are; flat gradients are summed in place.
  const double commBuffer =
      input.profile == Profile::Engine && p.dp > 1 && !preallocatedGrads ? 4.0 * shard : 0.0;
  const double fixed = detail::fixedOverheadBytes(m, p, input.profile);
  const double fragmentation = detail::fragmentationFraction(input.profile);

  MemoryBreakdown base;
  base.weights =
      bytes(state.weights * shard + detail::gatheredWeightBytes(counts, p, input.profile));
  base.optimizer = bytes(state.optimizer * shard);
  const double allGrads = state.gradients * shard;

  std::vector<double> stored;
  double storedSum = 0;
  for (std::int64_t layer = 0; layer < stageLayers; ++layer) {
    stored.push_back(storedBytes(input.recompute, block, layer));
    storedSum += stored.back();
  }
  const double othersInFlight = static_cast<double>(stage.inFlight - 1) * storedSum;

  std::vector<Phase> phases;
  if (stage.last) {
    Phase head{base, "head backward"};
    const double edge = compiled ? detail::compiledEdgeActivationBytes(m, p)
                                 : detail::edgeActivationBytes(m, p, input.profile);
    head.breakdown.activations = bytes(othersInFlight + storedSum + edge);
    const bool chunkedHead = compiled || rebuildsPlainHead(input);
    head.breakdown.logits = bytes(chunkedHead ? detail::chunkedHeadBytes(m, p)
                                              : detail::logitsBytes(m, p, input.profile));
    // The engine's head gradients are born after the logits' temporaries die.
    head.breakdown.gradients = bytes((preallocatedGrads ? allGrads : 0.0) + commBuffer);
    phases.push_back(head);
  }
  double below = storedSum;  // stored bytes of this micro-batch's blocks 0..layer
  for (std::int64_t layer = stageLayers - 1; layer >= 0; --layer) {
    Phase phase{base, "layer " + std::to_string(layer) + " backward"};
    phase.breakdown.activations = bytes(othersInFlight + below);
    phase.breakdown.recompute = bytes(recomputesBlock(input.recompute, layer)
                                          ? block.kept - block.checkpoint
                                          : rebuildBytes(input.recompute, block));
    phase.breakdown.workspace = bytes(recomputesBlock(input.recompute, layer)
                                          ? block.workspace
                                          : block.selectiveWorkspace);
    const double born = (stage.last ? headParams : 0.0) +
                        static_cast<double>((stageLayers - layer) * counts.block);
    phase.breakdown.gradients =
        bytes((preallocatedGrads ? allGrads : state.gradients * born / tp) + commBuffer);
    phases.push_back(phase);
    below -= stored[static_cast<std::size_t>(layer)];
  }
  Phase step{base, "optimizer step"};
  step.breakdown.gradients = bytes(allGrads + commBuffer);
  // The fused clipped AdamW updates the flat buffers in place: no temporaries.
  step.breakdown.optimizer +=
      bytes(compiled ? 0.0
                     : detail::optimizerStepBytes(counts, shardParams, p, input.profile,
                                                  input.flatGradients));
  phases.push_back(step);

  for (Phase& phase : phases) finish(phase.breakdown, fixed, fragmentation);
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
  if (input.compiledStep && input.profile != Profile::Engine) {
    return bad("--compile: on describes this engine's compiled step, not the " +
               toString(input.profile) + " profile (fused attention there is --attention flash)");
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
    const Phase peak = walkStage(input, stage, stageLayers, shardParams);
    if (peak.breakdown.total() >= prediction.breakdown.total()) {
      prediction.breakdown = peak.breakdown;
      prediction.peakPhase = (stages.size() > 1 ? (stage.first ? "first stage, " : "last stage, ")
                                                : std::string()) + peak.name;
      prediction.paramsPerRank = shardParams;
    }
  }
  const BlockBytes block = layerBytes(input);
  prediction.perLayer = {bytes(block.kept), bytes(block.selective), bytes(block.checkpoint)};
  prediction.totalBytes = prediction.breakdown.total();
  prediction.timeRatio = relativeStepTime(input);
  return prediction;
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
    if (recomputesBlock(input.recompute, layer)) ++full;
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
  // The rebuilt head runs its product once more; the compiled step's fused
  // head is chunked already and forms its gradients in forward.
  const bool headAgain = input.parallel.pp == 1 && rebuildsPlainHead(input);
  const double extra = static_cast<double>(full) * blockForward +
                       static_cast<double>(stageLayers - full) * perBlock +
                       (headAgain ? headForward : 0.0);
  return 1.0 + extra / step;
}

}  // namespace tb::memory
