// Label parsing is forgiving because cluster results arrive from spreadsheets
// and other tools; the canonical labels are what every output writes.
#include "tb/bench/ablation.hpp"

#include <algorithm>
#include <cctype>

namespace tb::bench {

namespace {

// Lower case without spaces, underscores or dashes: "AC2 + Compiler-Opt" -> "ac2+compileropt".
std::string normalized(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == ' ' || c == '_' || c == '-' || c == '\t') continue;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

}  // namespace

std::string_view label(AblationStep step) {
  switch (step) {
    case AblationStep::Base: return "Base";
    case AblationStep::Ac2: return "AC2";
    case AblationStep::CompilerOpt: return "AC2+CompilerOpt";
    case AblationStep::CkptOpt: return "AC2+CompilerOpt+CkptOpt";
  }
  return "Base";
}

std::optional<AblationStep> parseAblationLabel(std::string_view text) {
  std::string key = normalized(text);
  if (key == "base") return AblationStep::Base;
  if (key == "ac2") return AblationStep::Ac2;
  // "+CompilerOpt" and "AC2+CompilerOpt" name the same configuration.
  if (key.starts_with("ac2")) key.erase(0, 3);
  if (key == "+compileropt" || key == "compileropt") return AblationStep::CompilerOpt;
  if (key == "+compileropt+ckptopt" || key == "compileropt+ckptopt" || key == "+ckptopt" ||
      key == "ckptopt") {
    return AblationStep::CkptOpt;
  }
  return std::nullopt;
}

std::string labelSlug(AblationStep step) {
  // No '+' in paths that shells and URLs handle, and none in DNS-1123 names.
  std::string text(label(step));
  for (char& c : text) {
    c = c == '+' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return text;
}

int chainIndex(AblationStep step) {
  const auto* found = std::find(kAblationSteps.begin(), kAblationSteps.end(), step);
  return static_cast<int>(found - kAblationSteps.begin());
}

std::vector<std::string> engineRunFlags(AblationStep step) {
  // Base and AC2 recompute every layer, as `gradient_checkpointing=True`
  // does in the image; only CkptOpt lets the planner choose.
  switch (step) {
    case AblationStep::Base:
      return {"--runtime", "stock", "--compile", "off", "--recompute", "full"};
    case AblationStep::Ac2:
      return {"--runtime", "tuned", "--compile", "off", "--recompute", "full"};
    case AblationStep::CompilerOpt:
      return {"--runtime", "tuned", "--compile", "on", "--recompute", "full"};
    case AblationStep::CkptOpt:
      return {"--runtime", "tuned", "--compile", "on", "--recompute", "auto"};
  }
  return {};
}

std::vector<ScheduledRun> interleavedSchedule(int repeats) {
  std::vector<ScheduledRun> schedule;
  for (int repeat = 0; repeat < repeats; ++repeat) {
    for (const AblationStep step : kAblationSteps) schedule.push_back({step, repeat});
  }
  return schedule;
}

}  // namespace tb::bench
