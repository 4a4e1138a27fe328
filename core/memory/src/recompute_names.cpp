// Each name is mapped to what the framework's code keeps, read from that code
// (docs/MEMORY.md, "Recompute policies by the frameworks' names"):
// - torchtitan [activation_checkpoint]: mode "full" wraps every block;
//   mode "selective" with a number N checkpoints the blocks whose running
//   count is a multiple of N ("0" and "1": all of them); with "op" the
//   per-op policy keeps every other mm and attention's outputs.
// - Megatron: --recompute-granularity selective recomputes the
//   recompute_modules (default core_attn); full with --recompute-method
//   uniform keeps only the input of each chunk of N blocks, block recomputes
//   the first N blocks of each stage whole.
// - DeepSpeed activation checkpointing and the Trainer's
//   gradient_checkpointing checkpoint every decoder layer: full.
#include "recompute_names.hpp"

#include <array>
#include <charconv>

#include "tb/model/recompute_modules.hpp"

namespace tb::memory::detail {
namespace {

struct Framework {
  std::string_view prefix;  ///< "torchtitan:"
  std::string_view names;   ///< what follows the prefix, for messages
};

constexpr std::array<Framework, 4> kFrameworks{{
    {"torchtitan:", "none, full, op, every:N (selective_ac_option N)"},
    {"megatron:", "selective, selective:MODULES, full:uniform:N, full:block:N"},
    {"deepspeed:", "checkpointing"},
    {"hf:", "gradient_checkpointing"},
}};

std::optional<std::int64_t> count(std::string_view digits) {
  std::int64_t value = -1;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc() || end != digits.data() + digits.size() || digits.empty() || value < 0) {
    return std::nullopt;
  }
  return value;
}

std::optional<RecomputePolicy> torchtitan(std::string_view rest) {
  if (rest == "none") return RecomputePolicy{RecomputeKind::None, 0};
  if (rest == "full") return RecomputePolicy{RecomputeKind::Full, 0};
  if (rest == "op") return RecomputePolicy{RecomputeKind::Op, 0};
  for (std::string_view prefix : {std::string_view("every:"), std::string_view("selective:")}) {
    if (!rest.starts_with(prefix)) continue;
    const auto n = count(rest.substr(prefix.size()));
    if (!n) return std::nullopt;
    // count % N == 0 for every block when N is 1; torchtitan reads "0" so too.
    if (*n <= 1) return RecomputePolicy{RecomputeKind::Full, 0};
    return RecomputePolicy{RecomputeKind::Every, *n};
  }
  return std::nullopt;
}

std::optional<RecomputePolicy> megatron(std::string_view rest) {
  if (rest == "selective") return RecomputePolicy{RecomputeKind::Selective, 0};
  if (rest.starts_with("selective:")) {
    auto modules = model::parseRecomputeModules(rest.substr(10));
    if (!modules || (*modules & model::kOutputHead) != 0) return std::nullopt;
    return RecomputePolicy{RecomputeKind::Selective, 0,
                           *modules == model::kCoreAttention ? std::uint8_t{0} : *modules};
  }
  if (rest.starts_with("full:uniform:")) {
    const auto n = count(rest.substr(13));
    if (!n || *n < 1) return std::nullopt;
    return *n == 1 ? RecomputePolicy{RecomputeKind::Full, 0}
                   : RecomputePolicy{RecomputeKind::Uniform, *n};
  }
  if (rest.starts_with("full:block:")) {
    const auto n = count(rest.substr(11));
    if (!n) return std::nullopt;
    return RecomputePolicy{RecomputeKind::Layers, *n};
  }
  return std::nullopt;
}

}  // namespace

std::optional<Expected<RecomputePolicy>> parseFrameworkRecompute(std::string_view text) {
  for (const Framework& framework : kFrameworks) {
    if (!text.starts_with(framework.prefix)) continue;
    const std::string_view rest = text.substr(framework.prefix.size());
    std::optional<RecomputePolicy> policy;
    if (framework.prefix == "torchtitan:") policy = torchtitan(rest);
    if (framework.prefix == "megatron:") policy = megatron(rest);
    if (framework.prefix == "deepspeed:" && rest == "checkpointing") {
      policy = RecomputePolicy{RecomputeKind::Full, 0};
    }
    if (framework.prefix == "hf:" && rest == "gradient_checkpointing") {
      policy = RecomputePolicy{RecomputeKind::Full, 0};
    }
    if (policy) return Expected<RecomputePolicy>(*policy);
    return Expected<RecomputePolicy>(
        makeError(ErrorKind::BadInput, "--recompute: unknown policy '" + std::string(text) + "' (" +
                                           std::string(framework.prefix) + " takes " +
                                           std::string(framework.names) + ")"));
  }
  return std::nullopt;
}

std::string frameworkRecomputeNames() {
  std::string names;
  for (const Framework& framework : kFrameworks) {
    if (!names.empty()) names += "; ";
    names += std::string(framework.prefix) + std::string(framework.names);
  }
  return names;
}

}  // namespace tb::memory::detail

namespace tb::memory {

std::string frameworkSpelling(Profile profile, const RecomputePolicy& policy) {
  const std::string n = std::to_string(policy.layers);
  switch (profile) {
    case Profile::Torchtitan:
      switch (policy.kind) {
        case RecomputeKind::None: return "[activation_checkpoint] mode = \"none\"";
        case RecomputeKind::Full: return "[activation_checkpoint] mode = \"full\"";
        case RecomputeKind::Op:
          return "[activation_checkpoint] mode = \"selective\", selective_ac_option = \"op\"";
        case RecomputeKind::Every:
          return "[activation_checkpoint] mode = \"selective\", selective_ac_option = \"" + n +
                 "\"";
        case RecomputeKind::Selective:
        case RecomputeKind::Layers:
        case RecomputeKind::Uniform: break;
      }
      return {};
    case Profile::Megatron:
      switch (policy.kind) {
        case RecomputeKind::None: return "no --recompute-granularity";
        case RecomputeKind::Full:
          return "--recompute-granularity full --recompute-method uniform "
                 "--recompute-num-layers 1";
        case RecomputeKind::Uniform:
          return "--recompute-granularity full --recompute-method uniform "
                 "--recompute-num-layers " +
                 n;
        case RecomputeKind::Layers:
          if (policy.modules != 0) break;  // Megatron takes one granularity
          return "--recompute-granularity full --recompute-method block "
                 "--recompute-num-layers " +
                 n;
        case RecomputeKind::Selective:
          if (selectiveModules(policy) != model::kCoreAttention) break;
          return "--recompute-granularity selective";
        case RecomputeKind::Op:
        case RecomputeKind::Every: break;
      }
      return {};
    case Profile::DeepSpeed:
      if (policy.kind == RecomputeKind::None) return "no activation checkpointing";
      return policy.kind == RecomputeKind::Full ? "activation checkpointing of every layer"
                                                : std::string();
    case Profile::Fsdp:
      if (policy.kind == RecomputeKind::None) {
        return "TrainingArguments(gradient_checkpointing=False)";
      }
      return policy.kind == RecomputeKind::Full ? "TrainingArguments(gradient_checkpointing=True)"
                                                : std::string();
    case Profile::Engine: break;
  }
  return {};
}

std::string recomputeMapping(std::string_view text) {
  const auto named = detail::parseFrameworkRecompute(text);
  if (!named || !*named) return {};
  const RecomputePolicy& policy = **named;
  std::string meaning;
  switch (policy.kind) {
    case RecomputeKind::None: meaning = "every block keeps what autograd saves"; break;
    case RecomputeKind::Full:
      meaning = "every block keeps only its input and is rebuilt whole";
      break;
    case RecomputeKind::Op:
      meaning =
          "per-op checkpointing: each block keeps its input, the outputs of wq, wv, w1 "
          "and w2 (every other matrix product) and attention's output and log-sum-exp; "
          "wk, wo, w3, the norms, RoPE and the SwiGLU gate are rebuilt";
      break;
    case RecomputeKind::Every:
      meaning = "blocks 0, " + std::to_string(policy.layers) + ", " +
                std::to_string(2 * policy.layers) +
                ", ... keep only their input and are rebuilt whole; the others keep everything";
      break;
    case RecomputeKind::Uniform:
      meaning = "each chunk of " + std::to_string(policy.layers) +
                " blocks keeps only its input and is rebuilt whole in backward";
      break;
    case RecomputeKind::Layers:
      meaning = "the first " + std::to_string(policy.layers) +
                " blocks of each pipeline stage are rebuilt whole, the rest keep everything";
      break;
    case RecomputeKind::Selective: {
      const std::uint8_t modules = selectiveModules(policy);
      // selectiveSpelling is "selective:LIST" for anything but core_attn alone.
      meaning = modules == model::kCoreAttention
                    ? "every block rebuilds the attention core (scores, softmax, attention x "
                      "V); under flash attention that keeps nothing less"
                    : "every block rebuilds " + model::selectiveSpelling(modules).substr(10);
      break;
    }
  }
  return std::string(text) + " = " + toString(policy) + ": " + meaning;
}

}  // namespace tb::memory
