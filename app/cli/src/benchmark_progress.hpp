// What the benchmark shows on stderr while it runs. A terminal gets one bar
// redrawn in place ("[5/12] AC2+CompilerOpt repeat 2 step 7/20"); a log file
// or a pipe gets one plain line per finished run, so CI logs stay readable.
#pragma once

#include <iosfwd>

#include "tb/bench/ablation_runner.hpp"

namespace tb::cli {

/// Draws the runner's progress on one stream.
class BenchmarkProgress {
 public:
  /// `live`: redraw a bar in place (the stream is a terminal).
  BenchmarkProgress(std::ostream& err, bool live) : err_(err), live_(live) {}

  void onProgress(const bench::AblationProgress& progress);
  void onFinished(const bench::FinishedRun& finished);
  /// Clears a bar left on the line (before a final message).
  void clear();

 private:
  std::ostream& err_;
  bool live_;
  bool barShown_ = false;
};

}  // namespace tb::cli
