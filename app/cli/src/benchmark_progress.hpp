// What the benchmark shows people on stderr while it runs, rendered from the
// same typed events that `--events` writes for programs, so the words here can
// change freely: no program reads them. A terminal gets one bar redrawn in
// place ("[5/12] AC2+CompilerOpt repeat 2 step 7/20"); a log file or a pipe
// gets one plain line per finished run, so CI logs stay readable.
#pragma once

#include <iosfwd>

#include "tb/runs/benchmark_event.hpp"

namespace tb::cli {

/// Draws the benchmark's progress on one stream.
class BenchmarkProgress {
 public:
  /// `live`: redraw a bar in place (the stream is a terminal).
  BenchmarkProgress(std::ostream& err, bool live) : err_(err), live_(live) {}

  void onEvent(const runs::BenchmarkEvent& event);
  /// Clears a bar left on the line (before a final message).
  void clear();

 private:
  void drawBar(const runs::BenchmarkEvent& event);
  void printEnd(const runs::BenchmarkEvent& event);

  std::ostream& err_;
  bool live_;
  bool barShown_ = false;
};

}  // namespace tb::cli
