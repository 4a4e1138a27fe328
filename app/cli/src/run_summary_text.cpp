#include "run_summary_text.hpp"

#include <cstdio>
#include <string>

#include "tb/common/units.hpp"

namespace tb::cli {

void printRunSummary(std::ostream& out, const runs::RunSummary& s) {
  char line[512];
  std::snprintf(line, sizeof(line),
                "%s: %s after step %lld, loss %.4f -> %.4f\n"
                "%.0f tokens/s, step %.4f s, peak %s, MFU %.1f%% of %.1f GFLOP/s "
                "(in-process matmul probe)\n%d threads on %s, %lld parameters, recompute %s\n",
                s.model.c_str(), std::string(runs::toString(s.state)).c_str(),
                static_cast<long long>(s.steps), s.lossFirst.value_or(0.0),
                s.lossLast.value_or(0.0), s.tokensPerSecond, s.stepTimeSeconds,
                formatBytes(s.peakBytes).c_str(), s.mfu * 100.0, s.matmulGflops, s.threads,
                s.device.c_str(), static_cast<long long>(s.params), s.recompute.c_str());
  out << line;
  if (s.heldOutLoss) out << "held-out loss " << *s.heldOutLoss << '\n';
  if (s.worldSize > 1) {
    out << "data parallel over " << s.worldSize
        << " ranks (tokens/s and loss are the whole group's, peak the largest rank's):\n";
    for (const runs::RankOutcome& rank : s.ranks) {
      out << "  rank " << rank.rank << ": " << runs::toString(rank.state) << ", peak "
          << formatBytes(rank.peakBytes);
      if (!rank.message.empty()) out << ": " << rank.message;
      out << '\n';
    }
  }
  out << "run directory: " << s.runDir.string() << '\n';
}

}  // namespace tb::cli
