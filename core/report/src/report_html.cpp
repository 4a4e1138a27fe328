// A self-contained page: styles inline, charts as data: URLs, no script and
// no external resource, so the file can be mailed or attached to a ticket and
// opened anywhere. Light and dark follow the reader's system setting.
#include "report_format.hpp"
#include "report_renderers.hpp"
#include "tb/common/units.hpp"

namespace tb::report::detail {

namespace {

std::string escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

constexpr const char* kStyle = R"(
  :root { color-scheme: light dark; --fg: #1d1d1f; --bg: #ffffff; --muted: #6e6e73;
          --rule: #d2d2d7; --accent: #0072b2; --warn: #a04b00; }
  @media (prefers-color-scheme: dark) {
    :root { --fg: #f5f5f7; --bg: #1c1c1e; --muted: #a1a1a6; --rule: #3a3a3c; --accent: #56b4e9;
            --warn: #f0a848; }
  }
  body { font: 15px/1.5 system-ui, "DejaVu Sans", sans-serif; color: var(--fg);
         background: var(--bg); max-width: 1100px; margin: 2em auto; padding: 0 1.5em; }
  h1 { font-size: 1.6em; margin-bottom: 0.2em; } h2 { font-size: 1.2em; margin-top: 2em; }
  .meta { color: var(--muted); }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.2em 1.2em; }
  dt { color: var(--muted); }
  table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
  th, td { padding: 0.4em 0.6em; border-bottom: 1px solid var(--rule); text-align: right; }
  th:first-child, td:first-child, th:nth-child(2), td:nth-child(2) { text-align: left; }
  td.speedup { font-weight: 600; color: var(--accent); }
  figure { margin: 1.5em 0; } figure img { max-width: 100%; height: auto; }
  figcaption { color: var(--muted); font-size: 0.9em; }
  .note { color: var(--muted); font-size: 0.9em; }
  .partial { color: var(--warn); font-weight: 600; border-left: 3px solid var(--warn);
             padding-left: 0.6em; }
)";

std::string definition(const std::string& term, const std::string& value) {
  return "<dt>" + escape(term) + "</dt><dd>" + escape(value) + "</dd>\n";
}

std::string tableHtml(const std::vector<ReportRow>& rows) {
  std::string out =
      "<table>\n<thead><tr><th>Configuration</th><th>Source</th><th>Model</th><th>GPUs</th>"
      "<th>Throughput (median)</th><th>Min–max</th><th>Speedup vs Base</th><th>Step time</th>"
      "<th>Peak memory</th><th>MFU</th><th>Loss</th></tr></thead>\n<tbody>\n";
  for (const ReportRow& row : rows) {
    out += "<tr><td>" + escape(row.label) + "</td><td>" + escape(row.source) + "</td><td>" +
           escape(row.model) + "</td><td>" + gpusText(row.gpus) + "</td><td>" +
           fixed(row.throughput.median, 1) + " " + escape(row.throughputUnit) + "</td><td>" +
           fixed(row.throughput.min, 1) + "–" + fixed(row.throughput.max, 1) +
           "</td><td class=\"speedup\">" + speedupText(row.speedupOverBase) + "</td><td>" +
           (row.stepTimeMedianS > 0 ? fixed(row.stepTimeMedianS, 3) + " s" : "—") + "</td><td>" +
           (row.peakBytes > 0 ? formatBytes(row.peakBytes) : "—") + "</td><td>" +
           (row.mfu > 0 ? fixed(100.0 * row.mfu, 1) + " %" : "—") + "</td><td>" +
           (row.lossFirst != 0.0 ? fixed(row.lossFirst, 3) + " → " + fixed(row.lossLast, 3) : "—") +
           "</td></tr>\n";
  }
  return out + "</tbody>\n</table>\n";
}

// The charts, or the note that says why they are missing, or both.
std::string chartsHtml(const ReportCharts& charts) {
  if (charts.charts.empty() && charts.note.empty()) return {};
  std::string out = "<h2>Charts</h2>\n";
  for (const ReportChart& chart : charts.charts) {
    out += "<figure><img alt=\"" + escape(chart.title) + "\" src=\"data:" + escape(chart.mimeType) +
           ";base64," + base64(chart.data) + "\"><figcaption>" + escape(chart.title) +
           "</figcaption></figure>\n";
  }
  if (!charts.note.empty()) out += "<p class=\"note\">" + escape(charts.note) + "</p>\n";
  return out;
}

}  // namespace

std::string renderHtml(const bench::AblationResults& results, const ReportCharts& charts) {
  const std::vector<ReportRow> rows = reportRows(results);
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"generator\" content=\"TrainBench " + escape(results.appVersion) + "\">\n";
  out += "<title>TrainBench ablation report</title>\n<style>" + std::string(kStyle) +
         "</style>\n</head>\n<body>\n";
  out += "<h1>TrainBench ablation report</h1>\n<p class=\"meta\">Created " +
         escape(results.createdAt) + " by TrainBench " + escape(results.appVersion) + "</p>\n";
  if (const std::string partial = bench::partialNote(results); !partial.empty()) {
    // <strong> as well as the class: Qt's preview of the page ignores CSS variables.
    out += "<p class=\"partial\"><strong>" + escape(partial) +
           "</strong>: the numbers below rest on the runs that finished.</p>\n";
  }

  out += "<h2>Configuration</h2>\n<dl>\n";
  if (!results.imageTag.empty()) out += definition("Image", results.imageTag);
  if (!results.model.empty()) {
    out += definition("Engine model", results.model);
    out += definition("Steps per run", std::to_string(results.steps) + " (" +
                                           std::to_string(results.warmupSteps) +
                                           " warm-up steps excluded)");
    out += definition("Repeats", std::to_string(results.repeats) + ", interleaved");
  }
  if (results.memoryBudgetBytes > 0) {
    out += definition("Memory budget", formatBytes(results.memoryBudgetBytes));
  }
  out += "</dl>\n<h2>Machine</h2>\n<dl>\n";
  const bench::Machine& m = results.machine;
  out += definition("CPU", m.cpuModel);
  out += definition("Cores / threads", std::to_string(m.cores) + " / " + std::to_string(m.threads));
  if (!m.matmulPath.empty()) out += definition("Matrix products", m.matmulPath);
  if (!m.libtorchVersion.empty()) out += definition("LibTorch", m.libtorchVersion);
  out += definition("Device", m.device);
  out += "</dl>\n<h2>Results</h2>\n" + tableHtml(rows);
  out +=
      "<p class=\"note\">Speedups compare each configuration with the Base of the same "
      "source, model, GPU count and unit; medians over the runs that finished.</p>\n";
  for (const ReportRow& row : rows) {
    if (row.failedRuns > 0)
      out += "<p class=\"note\">" + escape(row.label) + " (" + escape(row.source) +
             "): " + std::to_string(row.failedRuns) +
             " run(s) did not finish and are excluded.</p>\n";
    if (const std::string excluded = excludedTimeNote(row); !excluded.empty())
      out += "<p class=\"note\">" + escape(row.label) + " (" + escape(row.source) +
             "): " + escape(excluded) + ".</p>\n";
  }
  out += chartsHtml(charts);
  return out + "</body>\n</html>\n";
}

}  // namespace tb::report::detail
