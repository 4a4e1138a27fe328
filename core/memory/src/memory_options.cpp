// Spellings of the prediction knobs. Every parser echoes the value it refused
// and lists the accepted ones, the message the CLI shows as it is.
#include "tb/memory/memory_options.hpp"

#include <charconv>
#include <optional>
#include <utility>

#include "recompute_names.hpp"

namespace tb::memory {
namespace {

Error bad(const std::string& message) { return makeError(ErrorKind::BadInput, message); }

/// The count after `prefix` ("layers:", "every:", ...), or nullopt.
std::optional<std::int64_t> countAfter(std::string_view text, std::string_view prefix) {
  if (!text.starts_with(prefix)) return std::nullopt;
  const std::string_view digits = text.substr(prefix.size());
  std::int64_t value = -1;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc() || end != digits.data() + digits.size() || digits.empty() || value < 0) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

Expected<Profile> parseProfile(std::string_view text) {
  if (text == "engine") return Profile::Engine;
  if (text == "megatron") return Profile::Megatron;
  if (text == "deepspeed") return Profile::DeepSpeed;
  if (text == "fsdp") return Profile::Fsdp;
  if (text == "torchtitan") return Profile::Torchtitan;
  return bad("--profile: unknown profile '" + std::string(text) +
             "' (known: engine, megatron, deepspeed, fsdp, torchtitan)");
}

Expected<FrameworkVersion> parseFrameworkVersion(std::string_view text) {
  if (text == "current") return FrameworkVersion::Current;
  if (text == "2024-12") return FrameworkVersion::Dec2024;
  if (text == "2025-06") return FrameworkVersion::Mid2025;
  return bad("--framework-version: unknown version '" + std::string(text) +
             "' (known: 2024-12, 2025-06, current)");
}

std::string toString(FrameworkVersion version) {
  switch (version) {
    case FrameworkVersion::Current: return "current";
    case FrameworkVersion::Dec2024: return "2024-12";
    case FrameworkVersion::Mid2025: return "2025-06";
  }
  return "current";
}

Expected<DType> parseDType(std::string_view text) {
  if (text == "fp32" || text == "float32") return DType::Fp32;
  if (text == "bf16" || text == "bfloat16") return DType::Bf16;
  if (text == "fp16" || text == "float16") return DType::Fp16;
  return bad("--dtype: unknown dtype '" + std::string(text) + "' (known: fp32, bf16, fp16)");
}

Expected<RecomputePolicy> parseRecompute(std::string_view text) {
  if (auto named = detail::parseFrameworkRecompute(text)) return *named;
  const auto tail = model::splitSelectiveTail(text);
  if (!tail) return tail.error();
  if (tail->modules != 0) {
    auto head = parseRecompute(tail->head);
    if (!head || head->kind != RecomputeKind::Layers) {
      return makeError(ErrorKind::BadInput, "--recompute: '" + std::string(text) +
                                                "': the part before '+' must be layers:K");
    }
    head->modules = tail->modules;
    return head;
  }

  if (text == "none") return RecomputePolicy{RecomputeKind::None, 0};
  const auto selective = model::parseSelective(text);
  if (!selective) return selective.error();
  // core_attn alone is the plain policy, stored as 0 so it equals {Selective, 0}.
  if (*selective != 0) {
    return RecomputePolicy{RecomputeKind::Selective, 0,
                           *selective == model::kCoreAttention ? std::uint8_t{0} : *selective};
  }
  if (text == "full") return RecomputePolicy{RecomputeKind::Full, 0};
  if (text == "op") return RecomputePolicy{RecomputeKind::Op, 0};
  if (const auto k = countAfter(text, "layers:")) return RecomputePolicy{RecomputeKind::Layers, *k};
  // Every block of N (or chunks of one block) is full recomputation.
  for (const auto& [prefix, kind] :
       {std::pair{std::string_view("every:"), RecomputeKind::Every},
        std::pair{std::string_view("uniform:"), RecomputeKind::Uniform}}) {
    if (const auto n = countAfter(text, prefix); n && *n >= 1) {
      return *n == 1 ? RecomputePolicy{RecomputeKind::Full, 0} : RecomputePolicy{kind, *n};
    }
  }
  return bad("--recompute: unknown policy '" + std::string(text) +
             "' (known: none, selective, selective:MODULES, full, layers:K with K >= 0, "
             "layers:K+selective[:MODULES], op, every:N, uniform:N with N >= 1, and the "
             "frameworks' names " +
             detail::frameworkRecomputeNames() + "; trainbench run also takes auto)");
}

Expected<std::optional<RecomputePolicy>> parseEngineRecompute(std::string_view text) {
  if (text == "auto") return std::optional<RecomputePolicy>();
  Expected<RecomputePolicy> policy = parseRecompute(text);
  if (!policy) return policy.error();
  switch (policy->kind) {
    case RecomputeKind::None:
    case RecomputeKind::Selective:
    case RecomputeKind::Full:
    case RecomputeKind::Layers: return std::optional<RecomputePolicy>(*policy);
    case RecomputeKind::Op:
    case RecomputeKind::Every:
    case RecomputeKind::Uniform: break;
  }
  const std::string meaning = toString(*policy);
  return bad("--recompute: '" + std::string(text) + "'" +
             (meaning != text ? " (" + meaning + ")" : std::string()) +
             " is a framework's policy the engine does not run (the engine takes none, "
             "selective[:MODULES], full, layers:K, layers:K+selective[:MODULES] or auto)");
}

std::uint8_t selectiveModules(const RecomputePolicy& policy) {
  switch (policy.kind) {
    case RecomputeKind::Selective:
      return policy.modules != 0 ? policy.modules : std::uint8_t{model::kCoreAttention};
    case RecomputeKind::Layers: return policy.modules;
    case RecomputeKind::None:
    case RecomputeKind::Full:
    case RecomputeKind::Op:
    case RecomputeKind::Every:
    case RecomputeKind::Uniform: break;
  }
  return 0;
}

std::string toString(Profile profile) {
  switch (profile) {
    case Profile::Engine: return "engine";
    case Profile::Megatron: return "megatron";
    case Profile::DeepSpeed: return "deepspeed";
    case Profile::Fsdp: return "fsdp";
    case Profile::Torchtitan: return "torchtitan";
  }
  return "engine";
}

std::string toString(DType dtype) {
  switch (dtype) {
    case DType::Fp32: return "fp32";
    case DType::Bf16: return "bf16";
    case DType::Fp16: return "fp16";
  }
  return "fp32";
}

std::string toString(const RecomputePolicy& policy) {
  switch (policy.kind) {
    case RecomputeKind::None: return "none";
    case RecomputeKind::Selective: return model::selectiveSpelling(selectiveModules(policy));
    case RecomputeKind::Full: return "full";
    case RecomputeKind::Layers:
      return "layers:" + std::to_string(policy.layers) +
             (policy.modules != 0 ? "+" + model::selectiveSpelling(policy.modules) : std::string());
    case RecomputeKind::Op: return "op";
    case RecomputeKind::Every: return "every:" + std::to_string(policy.layers);
    case RecomputeKind::Uniform: return "uniform:" + std::to_string(policy.layers);
  }
  return "none";
}

Status validate(const ParallelConfig& parallel) {
  const auto rank = [](const char* flag, std::int64_t value) -> Status {
    if (value >= 1 && value <= 1'000'000) return {};
    return bad(std::string(flag) + ": " + std::to_string(value) +
               " ranks is not possible (give 1 to 1000000)");
  };
  if (Status s = rank("--dp", parallel.dp); !s) return s;
  if (Status s = rank("--tp", parallel.tp); !s) return s;
  if (Status s = rank("--pp", parallel.pp); !s) return s;
  if (Status s = rank("--cp", parallel.cp); !s) return s;
  if (parallel.zero < 0 || parallel.zero > 3) {
    return bad("--zero: stage " + std::to_string(parallel.zero) + " does not exist (give 0..3)");
  }
  return {};
}

std::int64_t bytesOf(DType dtype) { return dtype == DType::Fp32 ? 4 : 2; }

}  // namespace tb::memory
