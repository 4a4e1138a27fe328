// The compiled step (`--compile on`): a description of one training step of
// the model, as a list of operator patterns, is matched against the fused
// operators of fused/; each pattern that is recognised runs fused, anything
// else runs as the plain reference op, and the plan says which and why
// (`trainbench run --explain`).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "model/decoder_ops.hpp"
#include "tb/engine/run_config.hpp"

namespace tb::engine {

/// One pattern of the step and what the compiler did with it.
struct FusionDecision {
  std::string
      pattern;     ///< "rmsnorm", "rope(q,k)", "swiglu", "attention", "head+loss", "adamw+clip"
  std::string op;  ///< the fused operator chosen, or the plain op it falls back to
  bool fused = false;
  std::string reason;  ///< why it could not be fused; empty when fused
  int count = 0;       ///< occurrences per step
};

/// One operator of the step as the model describes it, before matching:
/// `kind` is what a pattern matches on ("rmsnorm", "linear", "rope", ...),
/// `where` says which one ("layers.0.wq", "output").
struct OpNode {
  std::string kind;
  std::string where;
};

/// Every operator of one training step of `model`, in execution order.
[[nodiscard]] std::vector<OpNode> describeStep(const ModelConfig& model);

struct StepPlan {
  Device device = Device::Cpu;  ///< picks the kernel table makeCompiledOps uses
  std::vector<FusionDecision> decisions;
  [[nodiscard]] bool fuses(const std::string& pattern) const;
};

/// Builds the step description of `config` (model, device, runtime) and
/// matches each pattern.
[[nodiscard]] StepPlan planCompiledStep(const RunConfig& config);

/// The plan as lines of text: one per pattern, fused or fallen back with why.
[[nodiscard]] std::string explain(const StepPlan& plan);

/// Operators for the plan: fused where it fuses, plain reference ops on `path`
/// elsewhere. `path` must outlive the result.
[[nodiscard]] std::unique_ptr<DecoderOps> makeCompiledOps(const StepPlan& plan,
                                                          const MatmulPath& path, bool gqaInPlace);

}  // namespace tb::engine
