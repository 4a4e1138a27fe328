// The four configurations of the ablation as data: their labels (shared by
// engine runs and imported cluster runs, so both sit in one chart) and the
// `trainbench run` flags that make each one in the embedded engine.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tb::bench {

/// One step of the chain Base -> AC2 -> +CompilerOpt -> +CkptOpt.
enum class AblationStep { Base, Ac2, CompilerOpt, CkptOpt };

/// All steps in chain order.
inline constexpr std::array<AblationStep, 4> kAblationSteps = {
    AblationStep::Base, AblationStep::Ac2, AblationStep::CompilerOpt, AblationStep::CkptOpt};

/// The label of ARCHITECTURE.md: "Base", "AC2", "AC2+CompilerOpt", "AC2+CompilerOpt+CkptOpt".
[[nodiscard]] std::string_view label(AblationStep step);

/// A label as written by people and other tools: the exact labels, any case,
/// with or without the "AC2+" prefix and spaces ("+CkptOpt", "compileropt").
[[nodiscard]] std::optional<AblationStep> parseAblationLabel(std::string_view text);

/// The label as a path and job-name word: "AC2+CompilerOpt" -> "ac2-compileropt".
[[nodiscard]] std::string labelSlug(AblationStep step);

/// Position in the chain (Base = 0), for sorting configurations in charts.
[[nodiscard]] int chainIndex(AblationStep step);

/// The `trainbench run` flags that select this configuration in the engine.
[[nodiscard]] std::vector<std::string> engineRunFlags(AblationStep step);

/// One scheduled run of a benchmark.
struct ScheduledRun {
  AblationStep step;
  int repeat;  ///< 0-based
};

/// Repeats interleaved as ABCD ABCD …, so that drift of the machine over the
/// benchmark (thermal, other load) hits every configuration alike.
[[nodiscard]] std::vector<ScheduledRun> interleavedSchedule(int repeats);

}  // namespace tb::bench
