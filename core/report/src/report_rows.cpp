// Speedups compare like with like: a cluster run's TFLOP/s per GPU is never
// divided by the engine's CPU tokens/s, and a Base of another model is not a
// base at all.
#include <algorithm>
#include <cmath>

#include "tb/bench/ablation.hpp"
#include "tb/common/text.hpp"
#include "tb/report/report.hpp"

namespace tb::report {

std::optional<ReportFormat> parseReportFormat(std::string_view text) {
  if (text == "html") return ReportFormat::Html;
  if (text == "md" || text == "markdown") return ReportFormat::Markdown;
  if (text == "csv") return ReportFormat::Csv;
  if (text == "json") return ReportFormat::Json;
  return std::nullopt;
}

std::vector<ReportRow> reportRows(const bench::AblationResults& results) {
  const std::vector<bench::ConfigurationResult> ordered =
      bench::inChainOrder(results.configurations);
  const auto baseOf = [&](const bench::ConfigurationResult& config) {
    const auto found = std::find_if(ordered.begin(), ordered.end(), [&](const auto& other) {
      return other.label == bench::label(bench::AblationStep::Base) &&
             other.source == config.source && other.model == config.model &&
             other.gpus == config.gpus && other.throughputUnit == config.throughputUnit;
    });
    return found == ordered.end() ? nullptr : &*found;
  };
  std::vector<ReportRow> rows;
  for (const bench::ConfigurationResult& config : ordered) {
    ReportRow row;
    row.label = config.label;
    row.source = std::string(bench::toString(config.source));
    row.model = config.model;
    row.gpus = config.gpus;
    row.throughputUnit = config.throughputUnit;
    row.throughput = config.throughput;
    if (const bench::ConfigurationResult* base = baseOf(config)) {
      row.speedupOverBase = bench::speedup(base->throughput, config.throughput);
    }
    row.stepTimeMedianS = config.stepTimeS.median;
    row.peakBytes = config.peakBytes;
    row.mfu = config.mfu;
    row.lossFirst = config.lossFirst;
    row.lossLast = config.lossLast;
    row.failedRuns =
        static_cast<int>(std::count_if(config.runs.begin(), config.runs.end(), [](const auto& run) {
          return run.state != runs::RunState::Completed;
        }));
    for (const bench::RunMeasurement& run : config.runs) {
      row.excludedSeconds += run.excludedSeconds;
      for (const std::string& kind : run.excludedKinds) {
        if (std::find(row.excludedKinds.begin(), row.excludedKinds.end(), kind) ==
            row.excludedKinds.end())
          row.excludedKinds.push_back(kind);
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string excludedTimeNote(const ReportRow& row) {
  if (row.excludedSeconds <= 0.0) return {};
  return "throughput over training time only: the " +
         formatDecimal(std::round(row.excludedSeconds * 10.0) / 10.0) + " s of " +
         joinList(row.excludedKinds, " and ") + " that the log timed inside the run are left out";
}

}  // namespace tb::report
