// Markdown for pasting into issues and wikis, CSV for spreadsheets. The CSV
// keeps raw numbers (no units, no "×") so that it can be computed with.
#include "report_format.hpp"
#include "report_renderers.hpp"
#include "tb/common/units.hpp"

namespace tb::report::detail {

namespace {

std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string markdownCell(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

}  // namespace

std::string renderCsv(const bench::AblationResults& results) {
  std::string out =
      "label,source,model,gpus,throughput_unit,throughput_median,throughput_min,throughput_max,"
      "repeats,speedup_vs_base,step_time_median_s,peak_bytes,mfu,loss_first,loss_last,"
      "failed_runs\n";
  for (const ReportRow& row : reportRows(results)) {
    out += csvField(row.label) + ',' + row.source + ',' + csvField(row.model) + ',' +
           std::to_string(row.gpus) + ',' + csvField(row.throughputUnit) + ',' +
           fixed(row.throughput.median, 3) + ',' + fixed(row.throughput.min, 3) + ',' +
           fixed(row.throughput.max, 3) + ',' + std::to_string(row.throughput.count) + ',' +
           fixed(row.speedupOverBase, 4) + ',' + fixed(row.stepTimeMedianS, 6) + ',' +
           std::to_string(row.peakBytes) + ',' + fixed(row.mfu, 4) + ',' + fixed(row.lossFirst, 4) +
           ',' + fixed(row.lossLast, 4) + ',' + std::to_string(row.failedRuns) + '\n';
  }
  return out;
}

std::string renderMarkdown(const bench::AblationResults& results) {
  std::string out = "# TrainBench ablation report\n\n";
  out += "- Created: " + results.createdAt + " by TrainBench " + results.appVersion + "\n";
  if (!results.imageTag.empty()) out += "- Image: `" + results.imageTag + "`\n";
  if (!results.model.empty()) {
    out += "- Engine model: `" + results.model + "`, " + std::to_string(results.steps) +
           " steps (" + std::to_string(results.warmupSteps) + " warm-up excluded), " +
           std::to_string(results.repeats) + " repeats, interleaved\n";
  }
  if (results.memoryBudgetBytes > 0) {
    out += "- Memory budget: " + formatBytes(results.memoryBudgetBytes) + "\n";
  }
  const bench::Machine& m = results.machine;
  out += "- Machine: " + markdownCell(m.cpuModel) + ", " + std::to_string(m.cores) + " cores, " +
         std::to_string(m.threads) + " threads, matrix products via " +
         (m.matmulPath.empty() ? std::string("?") : m.matmulPath) + ", LibTorch " +
         (m.libtorchVersion.empty() ? std::string("?") : m.libtorchVersion) + ", " + m.device +
         "\n\n";
  if (const std::string partial = bench::partialNote(results); !partial.empty()) {
    out += "> **" + partial + "**: the numbers below rest on the runs that finished.\n\n";
  }
  out +=
      "| Configuration | Source | Model | GPUs | Throughput (median) | Min–max | Speedup vs "
      "Base | Step time | Peak memory | MFU | Loss |\n";
  out += "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  std::string notes;
  for (const ReportRow& row : reportRows(results)) {
    out += "| " + markdownCell(row.label) + " | " + row.source + " | " + markdownCell(row.model) +
           " | " + gpusText(row.gpus) + " | " + fixed(row.throughput.median, 1) + " " +
           row.throughputUnit + " | " + fixed(row.throughput.min, 1) + "–" +
           fixed(row.throughput.max, 1) + " | " + speedupText(row.speedupOverBase) + " | " +
           (row.stepTimeMedianS > 0 ? fixed(row.stepTimeMedianS, 3) + " s" : "—") + " | " +
           (row.peakBytes > 0 ? formatBytes(row.peakBytes) : "—") + " | " +
           (row.mfu > 0 ? fixed(100.0 * row.mfu, 1) + " %" : "—") + " | " +
           (row.lossFirst != 0.0 ? fixed(row.lossFirst, 3) + " → " + fixed(row.lossLast, 3) : "—") +
           " |\n";
  }
  for (const ReportRow& row : reportRows(results)) {
    if (row.failedRuns > 0)
      notes += "- " + row.label + " (" + row.source + "): " + std::to_string(row.failedRuns) +
               " run(s) did not finish and are excluded from its numbers.\n";
    if (const std::string excluded = excludedTimeNote(row); !excluded.empty())
      notes += "- " + row.label + " (" + row.source + "): " + excluded + ".\n";
  }
  if (!notes.empty()) out += "\n" + notes;
  return out;
}

}  // namespace tb::report::detail
