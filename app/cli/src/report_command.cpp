// `trainbench report`: a results.json (and any cluster results laid beside
// it) rendered as HTML, Markdown, CSV or JSON. The format comes from --format
// or else from the output file's suffix, so `--out report.md` just works.
// HTML embeds the ablation charts, drawn by the Studio's own chart code where
// the build has it (report_charts.hpp); other formats carry numbers only.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>

#include "command.hpp"
#include "exit_codes.hpp"
#include "output.hpp"
#include "report_charts.hpp"
#include "tb/bench/ablation.hpp"
#include "tb/bench/cluster_import.hpp"
#include "tb/bench/imported_logs.hpp"
#include "tb/bench/results.hpp"
#include "tb/common/text.hpp"
#include "tb/logs/log_import.hpp"
#include "tb/report/report.hpp"

namespace tb::cli {
namespace {

struct ReportOptions {
  std::string in;
  std::vector<std::string> imports;
  std::optional<int> gpus;
  std::string format;
  std::string out;
  bool json = false;
};

Expected<report::ReportFormat> chooseFormat(const ReportOptions& options) {
  if (!options.format.empty()) {
    if (auto format = report::parseReportFormat(toLower(options.format))) return *format;
    return makeError(ErrorKind::BadInput,
                     "--format " + options.format + ": unknown format (use html, md, csv or json)");
  }
  std::string suffix = toLower(std::filesystem::path(options.out).extension().string());
  if (!suffix.empty()) suffix.erase(0, 1);
  if (auto format = report::parseReportFormat(suffix == "htm" ? "html" : suffix)) return *format;
  return makeError(ErrorKind::BadInput, "--out " + options.out +
                                            ": cannot tell the format from the suffix; "
                                            "give --format html|md|csv|json");
}

std::string formatName(report::ReportFormat format) {
  switch (format) {
    case report::ReportFormat::Html: return "html";
    case report::ReportFormat::Markdown: return "md";
    case report::ReportFormat::Csv: return "csv";
    case report::ReportFormat::Json: return "json";
  }
  return "html";
}

/// `LABEL=PATH` names a training framework's log under an ablation label;
/// anything else is a cluster-results file (docs/RESULTS.md).
Expected<std::vector<bench::ConfigurationResult>> importOne(const std::string& argument,
                                                            const ReportOptions& options) {
  const auto equals = argument.find('=');
  if (equals == std::string::npos || !bench::parseAblationLabel(argument.substr(0, equals))) {
    const std::string suffix = toLower(std::filesystem::path(argument).extension().string());
    if (suffix != ".csv" && suffix != ".json") {
      return makeError(ErrorKind::BadInput,
                       "--import " + argument +
                           ": not a cluster-results file (.csv or .json); a training log is "
                           "given with its ablation label, --import Base=" +
                           argument);
    }
    return bench::importClusterResults(argument);
  }
  const std::string label = argument.substr(0, equals);
  const std::string path = argument.substr(equals + 1);
  logs::ImportOptions importing;
  importing.gpus = options.gpus;
  auto imported = logs::importLog(path, importing);
  if (!imported) return imported.error();
  auto run = bench::clusterRunFromLog(*imported, label, "unknown");
  if (!run) return run.error();
  return bench::configurationsFromClusterRuns({*run}, path);
}

int runReport(const CommandContext& context, const ReportOptions& options) {
  Expected<report::ReportFormat> format = chooseFormat(options);
  if (!format) return context.fail(format.error());
  Expected<bench::AblationResults> results = bench::loadResults(options.in);
  if (!results) return context.fail(results.error());
  if (options.gpus && *options.gpus < 1) {
    return context.fail(makeError(ErrorKind::BadInput, "--gpus " + std::to_string(*options.gpus) +
                                                           ": a job runs on 1 GPU or more"));
  }
  for (const std::string& file : options.imports) {
    auto imported = importOne(file, options);
    if (!imported) return context.fail(imported.error());
    for (auto& config : *imported) results->configurations.push_back(std::move(config));
  }
  // Only HTML embeds charts; drawing them is the slow part, so other formats skip it.
  // The HTML renderer puts the note (why there are no charts) in the charts section.
  report::ReportCharts drawn;
  if (*format == report::ReportFormat::Html) drawn = renderReportCharts(*results);
  if (Status written = report::writeReport(options.out, *results, *format, drawn); !written) {
    return context.fail(written.error());
  }
  const std::size_t rows = results->configurations.size();
  if (options.json) {
    printJson(context.out(), Json{{"out", options.out},
                                  {"format", formatName(*format)},
                                  {"configurations", rows},
                                  {"imported_files", options.imports.size()},
                                  {"charts", drawn.charts.size()}});
  } else {
    context.out() << "Wrote " << options.out << " (" << rows << " configurations";
    if (!options.imports.empty()) {
      context.out() << ", " << options.imports.size() << " cluster file(s) imported";
    }
    if (!drawn.charts.empty()) context.out() << ", " << drawn.charts.size() << " charts";
    context.out() << ").\n";
    if (!drawn.note.empty()) context.out() << drawn.note << '\n';
    if (const std::string partial = bench::partialNote(*results); !partial.empty()) {
      context.out() << "The results are " << partial << ".\n";
    }
  }
  return kExitSuccess;
}

}  // namespace

RegisteredCommand registerReportCommand(CLI::App& app) {
  auto options = std::make_shared<ReportOptions>();
  CLI::App* command = app.add_subcommand(
      "report",
      "Render ablation results (results.json, plus imported cluster runs) as an HTML, "
      "Markdown, CSV or JSON report");
  command->add_option("--in", options->in, "results.json written by `trainbench benchmark`")
      ->required();
  command
      ->add_option("--import", options->imports,
                   "Cluster results (.csv or .json, docs/RESULTS.md), or LABEL=LOG: a training "
                   "framework's own log (trainbench import reads the same) under an ablation "
                   "label; may be repeated")
      ->type_name("FILE|LABEL=LOG");
  command->add_option("--gpus", options->gpus, "GPUs of the jobs whose logs (LABEL=LOG) do not say")
      ->type_name("N");
  command->add_option("--format", options->format,
                      "html, md, csv or json (default: from the --out suffix)");
  command->add_option("--out", options->out, "The report file, written atomically")->required();
  command->add_flag("--json", options->json, "Print what was written as one JSON document");
  takeLastOfRepeatedValues(*command);
  command->footer(
      "Exit codes: 0 written, 1 the file could not be written, 2 bad input (a missing or "
      "damaged results file, a bad cluster file, an unknown format).\nFormats and fields: "
      "docs/RESULTS.md, docs/CLI.md.");
  return {command,
          [options](const CommandContext& context) { return runReport(context, *options); }};
}

}  // namespace tb::cli
