// What one line of `trainbench benchmark`'s stderr says about its progress.
// The command writes one line per finished run when stderr is not a
// terminal ("[5/12] AC2+CompilerOpt repeat 2: ok, 530 tokens/s, …"); the
// wording is for people, so the parser looks for the pieces it needs (an
// ablation label, a "k/n" or "k of n" counter, a run status, or the same as
// JSON fields) and ignores everything else.
#pragma once

#include <QString>

#include <optional>

#include "tb/bench/ablation.hpp"

namespace tb::ui {

/// The pieces of one progress line; each is optional.
struct BenchmarkProgress {
  std::optional<tb::bench::AblationStep> step;
  int runsDone = 0;   ///< the counter's k; 0 when the line had none
  int runsTotal = 0;  ///< the counter's n; 0 when the line had none
  QString status;     ///< "ok", "oom", "failed", "interrupted"; empty when not said
  bool started = false;  ///< the line announces a run starting, not one finished
};

/// The progress in `line`, or none when it has neither a run counter nor a
/// run status (warnings, the budget note, blank lines).
[[nodiscard]] std::optional<BenchmarkProgress> parseBenchmarkProgress(const QString& line);

}  // namespace tb::ui
