#include "tb/model/recompute_modules.hpp"

#include <array>
#include <utility>

namespace tb::model {
namespace {

constexpr std::array<std::pair<RecomputeModule, std::string_view>, 4> kNames{{
    {kCoreAttention, "core_attn"},
    {kNorms, "layernorm"},
    {kMlpActivation, "mlp_act"},
    {kOutputHead, "head"},
}};

Error bad(std::string_view list, const std::string& why) {
  return makeError(ErrorKind::BadInput,
                   "--recompute: 'selective:" + std::string(list) + "': " + why +
                       " (modules: core_attn, layernorm, mlp_act, head, comma-separated)");
}

}  // namespace

Expected<std::uint8_t> parseRecomputeModules(std::string_view list) {
  std::uint8_t modules = 0;
  std::string_view rest = list;
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view entry = rest.substr(0, comma);
    std::uint8_t bit = 0;
    for (const auto& [module, name] : kNames) {
      if (entry == name) bit = module;
    }
    if (bit == 0) return bad(list, "unknown module '" + std::string(entry) + "'");
    if ((modules & bit) != 0) return bad(list, "'" + std::string(entry) + "' is named twice");
    modules = static_cast<std::uint8_t>(modules | bit);
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return modules;
}

std::string selectiveSpelling(std::uint8_t modules) {
  if (modules == kCoreAttention) return "selective";
  std::string text = "selective:";
  for (const auto& [module, name] : kNames) {
    if ((modules & module) == 0) continue;
    if (text.back() != ':') text += ',';
    text += name;
  }
  return text;
}

Expected<std::uint8_t> parseSelective(std::string_view text) {
  constexpr std::string_view kPlain = "selective";
  if (text == kPlain) return std::uint8_t{kCoreAttention};
  if (!text.starts_with(kPlain) || text.size() == kPlain.size() || text[kPlain.size()] != ':') {
    return std::uint8_t{0};
  }
  return parseRecomputeModules(text.substr(kPlain.size() + 1));
}

Expected<PolicyTail> splitSelectiveTail(std::string_view text) {
  const std::size_t plus = text.find('+');
  if (plus == std::string_view::npos) return PolicyTail{text, 0};
  const std::string_view tail = text.substr(plus + 1);
  const auto modules = parseSelective(tail);
  if (!modules) return modules.error();
  if (*modules == 0) {
    return makeError(ErrorKind::BadInput, "--recompute: '" + std::string(text) +
                                              "': after '+' comes selective or selective:MODULES");
  }
  return PolicyTail{text.substr(0, plus), *modules};
}

}  // namespace tb::model
