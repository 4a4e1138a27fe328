// `trainbench ablation collect DIR`: the completed jobs of a plan as the
// ablation's results (DIR/results.json, the document `benchmark` writes) and
// its HTML report, with every job that did not complete listed and why.
#include <CLI/CLI.hpp>

#include <memory>
#include <optional>
#include <ostream>
#include <vector>

#include "ablation_jobs.hpp"
#include "ablation_subcommands.hpp"
#include "benchmark_table.hpp"
#include "exit_codes.hpp"
#include "output.hpp"
#include "report_charts.hpp"
#include "tb/bench/statistics.hpp"
#include "tb/common/build_info.hpp"
#include "tb/common/utc_time.hpp"
#include "tb/report/report.hpp"

namespace tb::cli {
namespace {

struct CollectCommandOptions {
  std::string dir;
  std::optional<std::int64_t> warmup;
  std::optional<int> skipFirst;
  std::string results;  ///< empty: DIR/results.json
  std::string report;   ///< empty: DIR/report.html
  bool json = false;
};

Expected<bench::CollectOptions> collectOptionsOf(const CollectCommandOptions& options) {
  if (options.warmup && *options.warmup < 0) {
    return makeError(ErrorKind::BadInput,
                     "--warmup: '" + std::to_string(*options.warmup) + "' is not 0 or more steps");
  }
  if (options.skipFirst && *options.skipFirst < 0) {
    return makeError(ErrorKind::BadInput, "--skip-first: '" + std::to_string(*options.skipFirst) +
                                              "' is not 0 or more records");
  }
  return bench::CollectOptions{.warmupSteps = options.warmup, .skipFirst = options.skipFirst};
}

std::filesystem::path outputPath(const CollectCommandOptions& options, const std::string& given,
                                 const char* name) {
  return given.empty() ? std::filesystem::path(options.dir) / name : std::filesystem::path(given);
}

void printCollected(std::ostream& out, const bench::CollectedPlan& collected,
                    const std::vector<std::string>& scheduler, const std::filesystem::path& results,
                    const std::filesystem::path& report, const report::ReportCharts& drawn) {
  out << "Collected the ablation of " << collected.plan.release << " on "
      << bench::toString(collected.plan.scheduler) << ": " << jobCounts(collected) << '\n';
  printJobTable(out, collected, scheduler);
  out << '\n';
  printAblationTable(out, collected.results, bench::ResultSource::Cluster);
  out << "Wrote " << results.string() << " (" << collected.results.configurations.size()
      << " configurations) and " << report.string();
  if (!drawn.charts.empty()) out << " (" << drawn.charts.size() << " charts)";
  out << ".\n";
  if (!drawn.note.empty()) out << drawn.note << '\n';
}

// Each configuration's medians and its speedup over Base (null where
// either has no measured run), as the table prints them.
Json configurationsJson(const bench::AblationResults& results) {
  Json configurations = Json::array();
  const bench::ConfigurationResult* base = nullptr;
  for (const bench::ConfigurationResult& configuration : results.configurations) {
    if (configuration.label == "Base") base = &configuration;
  }
  for (const bench::ConfigurationResult& configuration : results.configurations) {
    const bool comparable =
        base != nullptr && base->throughput.count > 0 && configuration.throughput.count > 0;
    configurations.push_back(
        {{"label", configuration.label},
         {"runs", configuration.runs.size()},
         {"tokens_per_s_per_gpu", configuration.throughput.median},
         {"step_time_s",
          configuration.stepTimeS.count > 0 ? Json(configuration.stepTimeS.median) : Json()},
         {"peak_bytes", configuration.peakBytes},
         {"speedup_vs_base",
          comparable ? Json(bench::speedup(base->throughput, configuration.throughput)) : Json()}});
  }
  return configurations;
}

int runCollect(const CommandContext& context, const CollectCommandOptions& options) {
  Expected<bench::CollectOptions> collecting = collectOptionsOf(options);
  if (!collecting) return context.fail(collecting.error());
  Expected<bench::CollectedPlan> collected = readPlanArgument(options.dir, *collecting);
  if (!collected) return context.fail(collected.error());
  // The scheduler's word on each job: why a cancelled or failed one ended.
  const std::vector<std::string> scheduler = schedulerStates(*collected);
  if (collected->results.configurations.empty()) {
    printJobTable(context.err(), *collected, scheduler);
    return context.fail(makeError(
        ErrorKind::Runtime,
        "no job of the plan has completed yet (" + jobCounts(*collected) + "); nothing written"));
  }
  bench::AblationResults& results = collected->results;
  results.appVersion = std::string(projectVersion());
  results.createdAt = utcNow(kIsoUtc);
  const std::filesystem::path resultsPath = outputPath(options, options.results, "results.json");
  const std::filesystem::path reportPath = outputPath(options, options.report, "report.html");
  if (Status saved = bench::saveResults(resultsPath, results); !saved) {
    return context.fail(saved.error());
  }
  const report::ReportCharts drawn = renderReportCharts(results);
  if (Status written = report::writeReport(reportPath, results, report::ReportFormat::Html, drawn);
      !written) {
    return context.fail(written.error());
  }
  if (!options.json) {
    printCollected(context.out(), *collected, scheduler, resultsPath, reportPath, drawn);
    return kExitSuccess;
  }
  printJson(context.out(), Json{{"folder", options.dir},
                                {"results", resultsPath.string()},
                                {"report", reportPath.string()},
                                {"configurations", configurationsJson(results)},
                                {"complete", results.complete},
                                {"charts", drawn.charts.size()},
                                {"jobs", jobsJson(*collected, scheduler)}});
  return kExitSuccess;
}

}  // namespace

AblationSubcommand addAblationCollect(CLI::App& parent) {
  auto options = std::make_shared<CollectCommandOptions>();
  CLI::App* command = parent.add_subcommand(
      "collect", "Read a plan's completed jobs into results.json and report.html");
  command->add_option("DIR", options->dir, "The plan folder")->required()->type_name("DIR");
  command
      ->add_option("--warmup", options->warmup,
                   "Engine steps left out of the medians (default: a quarter of the "
                   "steps, 1..5)")
      ->type_name("N");
  command
      ->add_option("--skip-first", options->skipFirst,
                   "Records of a framework's log left out of the medians (default: what "
                   "the framework skips)")
      ->type_name("N");
  command
      ->add_option("--results", options->results, "Where the results go (default DIR/results.json)")
      ->type_name("FILE");
  command
      ->add_option("--report", options->report,
                   "Where the report goes (default "
                   "DIR/report.html)")
      ->type_name("FILE");
  command->add_flag("--json", options->json, "Print one JSON document (fields: docs/CLI.md)");
  takeLastOfRepeatedValues(*command);
  command->footer(
      "Exit codes: 0 written; 1 no job has completed yet, or a file could not be "
      "written; 2 bad input.\nJobs still running, interrupted or failed are listed "
      "and left out (docs/CLUSTER.md).");
  return {command,
          [options](const CommandContext& context) { return runCollect(context, *options); }};
}

}  // namespace tb::cli
