// Speedups are blank, not 0.00x, where a configuration has no successful run:
// a missing measurement must not read as "infinitely slower".
#include "benchmark_table.hpp"

#include <cstdio>
#include <map>
#include <ostream>
#include <string>

#include "output.hpp"
#include "tb/bench/statistics.hpp"
#include "tb/common/units.hpp"

namespace tb::cli {
namespace {

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof(text), pattern, value);
  return text;
}

std::string throughputCell(const bench::Summary& summary) {
  if (summary.count == 0) return "-";
  return format("%.0f", summary.median) + " [" + format("%.0f", summary.min) + "–" +
         format("%.0f", summary.max) + "]";
}

std::string speedupCell(const bench::Summary* base, const bench::Summary& candidate) {
  if (base == nullptr || base->count == 0 || candidate.count == 0) return "-";
  return format("%.2fx", bench::speedup(*base, candidate));
}

// "3/3 ok", or "2/3 ok, 1 oom" with each other status counted.
std::string runsCell(const bench::ConfigurationResult& config) {
  std::map<std::string, int> byStatus;
  for (const bench::RunMeasurement& run : config.runs) {
    ++byStatus[std::string(bench::resultsStatus(run.state))];
  }
  const int ok = byStatus["ok"];
  std::string text = std::to_string(ok) + "/" + std::to_string(config.runs.size()) + " ok";
  for (const auto& [status, count] : byStatus) {
    if (status != "ok" && count > 0) text += ", " + std::to_string(count) + " " + status;
  }
  return text;
}

}  // namespace

void printAblationTable(std::ostream& out, const bench::AblationResults& results,
                        bench::ResultSource source) {
  const bool perGpu = source == bench::ResultSource::Cluster;
  TextTable table({"configuration",
                   perGpu ? "tokens/s/GPU median [min–max]" : "tokens/s median [min–max]", "step s",
                   "peak MiB", "MFU", "vs Base", "vs previous", "runs"});
  const bench::Summary* base = nullptr;
  const bench::Summary* previous = nullptr;
  for (const bench::ConfigurationResult& config : bench::inChainOrder(results.configurations)) {
    if (config.source != source) continue;
    const bool measured = config.throughput.count > 0;
    if (config.label == "Base") base = &config.throughput;
    table.addRow({config.label, throughputCell(config.throughput),
                  config.stepTimeS.count > 0 ? format("%.4f", config.stepTimeS.median) : "-",
                  measured ? format("%.1f", static_cast<double>(config.peakBytes) / kMiB) : "-",
                  measured && config.mfu > 0.0 ? format("%.1f%%", config.mfu * 100.0) : "-",
                  speedupCell(base, config.throughput), speedupCell(previous, config.throughput),
                  runsCell(config)});
    previous = &config.throughput;
  }
  table.print(out);
  // Said under the table, where the medians are read, not only on stderr.
  if (const std::string partial = bench::partialNote(results); !partial.empty()) {
    out << "The results are " << partial << "; the medians rest on those runs.\n";
  }
}

}  // namespace tb::cli
