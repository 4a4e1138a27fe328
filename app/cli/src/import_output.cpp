// The import's table, JSON fields and cluster file.
#include "import_output.hpp"

#include <cmath>
#include <optional>

#include "tb/bench/cluster_import.hpp"
#include "tb/bench/imported_logs.hpp"
#include "tb/common/atomic_file.hpp"
#include "tb/common/text.hpp"

namespace tb::cli {
namespace {

Json optionalNumber(const std::optional<double>& value) {
  return value && std::isfinite(*value) ? Json(*value) : Json(nullptr);
}

template <class T>
Json optionalValue(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
}

}  // namespace

std::optional<double> lastLoss(const runs::ImportedRun& run) {
  for (auto step = run.steps.rbegin(); step != run.steps.rend(); ++step) {
    if (step->loss && std::isfinite(*step->loss)) return step->loss;
  }
  return std::nullopt;
}

Json importToJson(const logs::ImportedLog& imported, const std::string& label) {
  const runs::ImportedRun& run = imported.run;
  const logs::ImportMedians& m = imported.medians;
  return Json{{"file", run.source},
              {"format", run.format},
              {"framework", run.framework},
              {"label", label},
              {"records", run.records},
              {"first_step", optionalValue(run.firstStep)},
              {"last_step", optionalValue(run.lastStep)},
              {"partial", run.partial},
              {"partial_reason", run.partial ? Json(run.partialReason) : Json(nullptr)},
              {"loss_last", optionalNumber(lastLoss(run))},
              {"skipped_records", imported.skippedRecords},
              {"world_size", optionalValue(run.worldSize)},
              {"global_batch", optionalValue(run.globalBatch)},
              {"sequence_length", optionalValue(run.sequenceLength)},
              {"medians",
               {{"step_time_s", optionalNumber(m.stepTimeSeconds)},
                {"samples_per_s", optionalNumber(m.samplesPerSecond)},
                {"tokens_per_s_per_gpu", optionalNumber(m.tokensPerSecondPerGpu)},
                {"tflops_per_gpu", optionalNumber(m.tflopsPerGpu)},
                {"mfu", optionalNumber(m.mfu)},
                {"benchmark_throughput", optionalNumber(m.benchmarkThroughput)}}},
              {"peak_memory_bytes", optionalNumber(imported.peakMemoryBytes)},
              {"excluded_seconds", optionalNumber(imported.excludedSeconds)},
              {"excluded_kinds", imported.excludedKinds},
              {"found", imported.found},
              {"missing", imported.missing},
              {"hints", imported.hints}};
}

std::string orDash(const std::optional<double>& value, int decimals) {
  if (!value || !std::isfinite(*value)) return "-";
  const double scale = std::pow(10.0, decimals);
  return formatDecimal(std::round(*value * scale) / scale);
}

void printImports(std::ostream& out, const std::vector<logs::ImportedLog>& imports,
                  const std::vector<std::string>& labels) {
  TextTable table({"file", "format", "label", "records", "steps", "step s", "tokens/s/gpu",
                   "TFLOP/s/gpu", "mfu", "loss"});
  for (std::size_t i = 0; i < imports.size(); ++i) {
    const runs::ImportedRun& run = imports[i].run;
    const logs::ImportMedians& m = imports[i].medians;
    const std::string steps = run.firstStep && run.lastStep ? std::to_string(*run.firstStep) + "-" +
                                                                  std::to_string(*run.lastStep)
                                                            : "-";
    table.addRow({run.source, run.format + (run.partial ? " (partial)" : ""), labels[i],
                  std::to_string(run.records), steps, orDash(m.stepTimeSeconds, 3),
                  orDash(m.tokensPerSecondPerGpu), orDash(m.tflopsPerGpu),
                  m.mfu ? orDash(*m.mfu * 100.0) + " %" : "-", orDash(lastLoss(run), 4)});
  }
  table.print(out);
  for (std::size_t i = 0; i < imports.size(); ++i) {
    const logs::ImportedLog& imported = imports[i];
    const std::optional<double>& benchmark = imported.medians.benchmarkThroughput;
    if (imported.missing.empty() && imported.hints.empty() && !imported.run.partial && !benchmark)
      continue;
    out << '\n' << imported.run.source << ":\n";
    if (imported.run.partial) out << "  partial: " << imported.run.partialReason << '\n';
    if (benchmark)
      out << "  benchmark throughput (median, in the benchmark's own unit): "
          << orDash(benchmark, 2) << '\n';
    if (!imported.missing.empty())
      out << "  not in the file: " << joinList(imported.missing) << '\n';
    for (const std::string& hint : imported.hints) out << "  " << hint << '\n';
  }
}

Status writeClusterFile(const std::vector<logs::ImportedLog>& imports,
                        const std::vector<std::string>& labels, const std::string& model,
                        const std::string& out) {
  std::vector<bench::ClusterRun> rows;
  for (std::size_t i = 0; i < imports.size(); ++i) {
    auto row = bench::clusterRunFromLog(imports[i], labels[i], model);
    if (!row) return std::move(row).error();
    rows.push_back(std::move(*row));
  }
  const std::string text = bench::clusterJsonText(rows);
  if (auto readBack = bench::parseClusterJson(text, out); !readBack)
    return std::move(readBack).error();
  return writeFileAtomically(out, text);
}

}  // namespace tb::cli
