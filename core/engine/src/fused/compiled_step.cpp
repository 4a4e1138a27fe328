// The step compiler. The model is first written out as the list of operators
// one training step runs (describeStep), then each pattern of fusable
// operators is matched against that list; a match becomes a fused kernel when
// the device's kernel table has one and the pattern's conditions hold, and
// otherwise stays the plain op with the reason. Operators no pattern covers
// (matrix products, residual adds, the embedding) are listed too, so
// `--explain` accounts for the whole step. The kernels are chosen through the
// table of the plan's device, so a CUDA backend only adds a table.
#include "fused/compiled_step.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <string_view>

#include "fused/kernel_table.hpp"
#include "tb/engine/model.hpp"

namespace tb::engine {
namespace {

/// A run of operator kinds that one fused kernel replaces.
struct Pattern {
  std::string name;
  std::vector<std::string> kinds;
  std::string fusedOp;
  std::string plainOp;
  /// Whether the device has the kernel.
  std::function<bool(const fused::KernelTable&)> hasKernel;
  /// Why the pattern cannot fuse for this run, beyond the kernel's presence.
  std::function<std::optional<std::string>(const RunConfig&)> blocker;
};

std::optional<std::string> always(const RunConfig& /*config*/) { return std::nullopt; }

std::vector<Pattern> patterns() {
  return {
      {"rmsnorm",
       {"rmsnorm"},
       "fused::rmsNorm",
       "ops::rmsNorm",
       [](const fused::KernelTable& t) { return t.rmsNorm != nullptr; },
       always},
      {"rope(q,k)",
       {"rope"},
       "fused::rope",
       "ops::rope",
       [](const fused::KernelTable& t) { return t.rope != nullptr; },
       [](const RunConfig& c) -> std::optional<std::string> {
         const std::int64_t hd = c.model.dim / std::max<std::int64_t>(c.model.heads, 1);
         if (hd % 2 != 0) return "head_dim " + std::to_string(hd) + " is odd";
         return std::nullopt;
       }},
      {"attention",
       {"matmul", "scale", "causal_mask", "softmax", "matmul"},
       "fused::causalAttention",
       "ops::causalAttention",
       [](const fused::KernelTable& t) { return t.causalAttention != nullptr; },
       [](const RunConfig& c) -> std::optional<std::string> {
         if (c.model.kvHeads < 1 || c.model.heads % c.model.kvHeads != 0) {
           return "heads " + std::to_string(c.model.heads) + " not divisible by kv heads " +
                  std::to_string(c.model.kvHeads);
         }
         return std::nullopt;
       }},
      {"swiglu",
       {"silu", "mul"},
       "fused::swiGluGate",
       "ops::swiGluGate",
       [](const fused::KernelTable& t) { return t.swiGluGate != nullptr; },
       always},
      {"head+loss",
       {"linear", "log_softmax", "nll_loss"},
       "fused::headLoss (chunked)",
       "linear + ops::crossEntropy",
       [](const fused::KernelTable& t) { return t.headLoss != nullptr; },
       always},
      {"adamw+clip",
       {"clip_grad_norm", "adamw"},
       "fused::clippedAdamW",
       "clipGradientNorm + AdamW",
       [](const fused::KernelTable& t) { return t.clippedAdamW != nullptr; },
       [](const RunConfig& c) -> std::optional<std::string> {
         if (!c.runtime.flatGradients) {
           return std::string("flat gradients off: the runtime has -flat-grads");
         }
         return std::nullopt;
       }},
  };
}

bool matchesAt(const std::vector<OpNode>& nodes, std::size_t first,
               const std::vector<std::string>& kinds) {
  if (first + kinds.size() > nodes.size()) return false;
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    if (nodes[first + i].kind != kinds[i]) return false;
  }
  return true;
}

/// The reason of operators no pattern covers; explain() calls them "plain".
constexpr std::string_view kNoPattern = "no fusion pattern";

/// The plain ops no pattern covers, and how they run.
std::string plainOpFor(const std::string& kind) {
  if (kind == "linear") return "MatmulPath::linear (the run's matrix-product path)";
  if (kind == "add") return "residual add (LibTorch)";
  if (kind == "embedding") return "at::embedding";
  return kind;
}

}  // namespace

std::vector<OpNode> describeStep(const ModelConfig& model) {
  std::vector<OpNode> nodes{{"embedding", "embedding"}};
  for (std::int64_t layer = 0; layer < model.layers; ++layer) {
    const std::string prefix = "layers." + std::to_string(layer) + ".";
    const std::string bias = model.qkvBias ? "+bias" : "";
    for (const auto& [kind, where] :
         std::vector<std::pair<std::string, std::string>>{{"rmsnorm", "attention_norm"},
                                                          {"linear", "wq" + bias},
                                                          {"linear", "wk" + bias},
                                                          {"linear", "wv" + bias},
                                                          {"rope", "q"},
                                                          {"rope", "k"},
                                                          {"matmul", "q·kᵀ"},
                                                          {"scale", "1/sqrt(head_dim)"},
                                                          {"causal_mask", "scores"},
                                                          {"softmax", "scores"},
                                                          {"matmul", "p·v"},
                                                          {"linear", "wo"},
                                                          {"add", "attention residual"},
                                                          {"rmsnorm", "ffn_norm"},
                                                          {"linear", "w1"},
                                                          {"linear", "w3"},
                                                          {"silu", "w1 x"},
                                                          {"mul", "silu · w3 x"},
                                                          {"linear", "w2"},
                                                          {"add", "ffn residual"}}) {
      nodes.push_back({kind, prefix + where});
    }
  }
  nodes.push_back({"rmsnorm", "final_norm"});
  nodes.push_back({"linear", "output"});
  nodes.push_back({"log_softmax", "logits"});
  nodes.push_back({"nll_loss", "targets"});
  nodes.push_back({"clip_grad_norm", "all gradients"});
  nodes.push_back({"adamw", "all parameters"});
  return nodes;
}

bool StepPlan::fuses(const std::string& pattern) const {
  return std::any_of(decisions.begin(), decisions.end(), [&pattern](const FusionDecision& d) {
    return d.pattern == pattern && d.fused;
  });
}

StepPlan planCompiledStep(const RunConfig& config) {
  const std::vector<OpNode> nodes = describeStep(config.model);
  const std::vector<Pattern> all = patterns();
  const fused::KernelTable& table = fused::kernelTable(config.device);

  std::vector<int> matches(all.size(), 0);
  std::map<std::string, int> plainCounts;
  std::vector<std::string> plainOrder;
  for (std::size_t next = 0; next < nodes.size();) {
    const auto found = std::find_if(
        all.begin(), all.end(), [&](const Pattern& p) { return matchesAt(nodes, next, p.kinds); });
    if (found != all.end()) {
      ++matches[static_cast<std::size_t>(found - all.begin())];
      next += found->kinds.size();
      continue;
    }
    if (plainCounts[nodes[next].kind]++ == 0) plainOrder.push_back(nodes[next].kind);
    ++next;
  }

  StepPlan plan;
  plan.device = config.device;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (matches[i] == 0) continue;
    const Pattern& p = all[i];
    FusionDecision decision{p.name, p.fusedOp, true, "", matches[i]};
    if (!p.hasKernel(table)) {
      decision.reason = std::string(table.missingReason);
    } else if (auto blocked = p.blocker(config)) {
      decision.reason = *blocked;
    }
    if (!decision.reason.empty()) {
      decision.fused = false;
      decision.op = p.name == "attention" && config.runtime.gqaInPlace
                        ? "ops::causalAttentionGrouped"
                        : p.plainOp;
    }
    plan.decisions.push_back(std::move(decision));
  }
  for (const std::string& kind : plainOrder) {
    plan.decisions.push_back(
        {kind, plainOpFor(kind), false, std::string(kNoPattern), plainCounts[kind]});
  }
  return plan;
}

std::string explain(const StepPlan& plan) {
  std::ostringstream out;
  out << "compiled step on " << toString(plan.device) << ":\n";
  for (const auto& d : plan.decisions) {
    const char* label = d.fused ? "fused   " : d.reason == kNoPattern ? "plain   " : "fallback";
    out << "  " << label << ' ' << d.pattern << " x" << d.count << ": " << d.op;
    if (!d.fused && d.reason != kNoPattern) out << " (" << d.reason << ")";
    out << '\n';
  }
  return out.str();
}

namespace {

/// DecoderOps that run each operator through the kernel table where the plan
/// fuses its pattern and as the plain reference op elsewhere. The table's
/// entries are looked up once here, so a step pays one indirect call per op.
class CompiledOps final : public DecoderOps {
 public:
  CompiledOps(const StepPlan& plan, const MatmulPath& path, bool gqaInPlace)
      : path_(&path), gqaInPlace_(gqaInPlace) {
    const fused::KernelTable& table = fused::kernelTable(plan.device);
    if (plan.fuses("rmsnorm")) rmsNorm_ = table.rmsNorm;
    if (plan.fuses("rope(q,k)")) rope_ = table.rope;
    if (plan.fuses("attention")) attention_ = table.causalAttention;
    if (plan.fuses("swiglu")) gate_ = table.swiGluGate;
    if (plan.fuses("head+loss")) headLoss_ = table.headLoss;
  }

  at::Tensor linear(const at::Tensor& x, const at::Tensor& w,
                    const at::Tensor& bias) const override {
    return path_->linear(x, w, bias);
  }
  at::Tensor rmsNorm(const at::Tensor& x, const at::Tensor& w) const override {
    return rmsNorm_ != nullptr ? rmsNorm_(x, w, kNormEpsilon) : ops::rmsNorm(x, w, kNormEpsilon);
  }
  at::Tensor rope(const at::Tensor& x, const ops::RopeTables& tables) const override {
    return rope_ != nullptr ? rope_(x, tables) : ops::rope(x, tables);
  }
  at::Tensor attention(const at::Tensor& q, const at::Tensor& k,
                       const at::Tensor& v) const override {
    if (attention_ != nullptr) return attention_(q, k, v);
    return gqaInPlace_ ? ops::causalAttentionGrouped(q, k, v) : ops::causalAttention(q, k, v);
  }
  at::Tensor swiGluGate(const at::Tensor& a, const at::Tensor& b) const override {
    return gate_ != nullptr ? gate_(a, b) : ops::swiGluGate(a, b);
  }
  at::Tensor swiGlu(const at::Tensor& x, const at::Tensor& w1, const at::Tensor& w2,
                    const at::Tensor& w3) const override {
    const at::Tensor none;
    return linear(swiGluGate(linear(x, w1, none), linear(x, w3, none)), w2, none);
  }
  at::Tensor headLoss(const at::Tensor& x, const at::Tensor& weight,
                      const at::Tensor& targets) const override {
    if (headLoss_ != nullptr) return headLoss_(x, weight, targets, *path_, kHeadLossChunkRows);
    return ops::crossEntropy(linear(x, weight, at::Tensor()), targets);
  }
  /// The fused head already keeps one chunk of logits at a time, and forms
  /// its gradients without rebuilding them: the `head` module changes nothing.
  at::Tensor headLossRebuiltInBackward(const at::Tensor& x, const at::Tensor& weight,
                                       const at::Tensor& targets) const override {
    if (headLoss_ != nullptr) return headLoss(x, weight, targets);
    return DecoderOps::headLossRebuiltInBackward(x, weight, targets);
  }
  const MatmulPath& matmulPath() const override { return *path_; }

 private:
  /// Rows of logits alive at once in the fused head: 256 × a 32k vocabulary
  /// is 32 MiB of float32, small next to the [tokens, vocab] it replaces.
  static constexpr std::int64_t kHeadLossChunkRows = 256;

  const MatmulPath* path_;
  bool gqaInPlace_;
  decltype(fused::KernelTable::rmsNorm) rmsNorm_ = nullptr;
  decltype(fused::KernelTable::rope) rope_ = nullptr;
  decltype(fused::KernelTable::causalAttention) attention_ = nullptr;
  decltype(fused::KernelTable::swiGluGate) gate_ = nullptr;
  decltype(fused::KernelTable::headLoss) headLoss_ = nullptr;
};

}  // namespace

std::unique_ptr<DecoderOps> makeCompiledOps(const StepPlan& plan, const MatmulPath& path,
                                            bool gqaInPlace) {
  return std::make_unique<CompiledOps>(plan, path, gqaInPlace);
}

}  // namespace tb::engine
