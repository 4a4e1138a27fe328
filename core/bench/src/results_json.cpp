// The document is checked against its schema before any field is read, so
// the reader below can assume types and report nothing itself: every error a
// user sees comes from the validator, with the JSON path of the bad value.
#include <nlohmann/json.hpp>

#include "tb/bench/ablation.hpp"
#include "tb/bench/results.hpp"
#include "tb/common/atomic_file.hpp"
#include "tb/common/json_schema.hpp"

namespace tb::embedded {
std::string_view resultsSchemaJson();
}

namespace tb::bench {

namespace {

using Json = nlohmann::ordered_json;

Json summaryJson(const Summary& summary) {
  return Json{{"median", summary.median},
              {"min", summary.min},
              {"max", summary.max},
              {"count", summary.count}};
}

Summary summaryFrom(const Json& json) {
  Summary summary;
  summary.median = json.at("median").get<double>();
  summary.min = json.at("min").get<double>();
  summary.max = json.at("max").get<double>();
  summary.count = json.at("count").get<std::size_t>();
  return summary;
}

Json runJson(const RunMeasurement& run) {
  Json json{{"repeat", run.repeat},           {"status", resultsStatus(run.state)},
            {"tokens_per_s", run.tokensPerS}, {"step_time_s", run.stepTimeS},
            {"peak_bytes", run.peakBytes},    {"mfu", run.mfu},
            {"loss_first", run.lossFirst},    {"loss_last", run.lossLast}};
  if (!run.runDir.empty()) json["run_dir"] = run.runDir;
  if (run.excludedSeconds > 0.0) json["excluded_seconds"] = run.excludedSeconds;
  if (!run.excludedKinds.empty()) json["excluded_kinds"] = run.excludedKinds;
  return json;
}

RunMeasurement runFrom(const Json& json) {
  RunMeasurement run;
  run.repeat = json.at("repeat").get<int>();
  const std::string status = json.at("status").get<std::string>();
  // The schema has already limited the word to these.
  run.state = status == "ok" ? runs::RunState::Completed
                             : runs::runStateFromStatus(status).value_or(runs::RunState::Failed);
  run.tokensPerS = json.at("tokens_per_s").get<double>();
  run.stepTimeS = json.value("step_time_s", 0.0);
  run.peakBytes = json.value("peak_bytes", std::uint64_t{0});
  run.mfu = json.value("mfu", 0.0);
  run.lossFirst = json.value("loss_first", 0.0);
  run.lossLast = json.value("loss_last", 0.0);
  run.runDir = json.value("run_dir", std::string());
  run.excludedSeconds = json.value("excluded_seconds", 0.0);
  run.excludedKinds = json.value("excluded_kinds", std::vector<std::string>{});
  return run;
}

Json configurationJson(const ConfigurationResult& config) {
  Json json{{"label", config.label},
            {"source", std::string(toString(config.source))},
            {"model", config.model},
            {"gpus", config.gpus},
            {"throughput_unit", config.throughputUnit},
            {"throughput", summaryJson(config.throughput)}};
  if (config.stepTimeS.count > 0) json["step_time_s"] = summaryJson(config.stepTimeS);
  json["peak_bytes"] = config.peakBytes;
  json["mfu"] = config.mfu;
  json["loss_first"] = config.lossFirst;
  json["loss_last"] = config.lossLast;
  json["loss_curve"] = config.lossCurve;
  if (!config.lossSteps.empty()) json["loss_steps"] = config.lossSteps;
  json["step_times_s"] = config.stepTimes;
  Json runs = Json::array();
  for (const RunMeasurement& run : config.runs) runs.push_back(runJson(run));
  json["runs"] = std::move(runs);
  return json;
}

ConfigurationResult configurationFrom(const Json& json) {
  ConfigurationResult config;
  config.label = json.at("label").get<std::string>();
  config.source = json.at("source").get<std::string>() == "engine" ? ResultSource::Engine
                                                                   : ResultSource::Cluster;
  config.model = json.at("model").get<std::string>();
  config.gpus = json.value("gpus", 0);
  config.throughputUnit = json.at("throughput_unit").get<std::string>();
  config.throughput = summaryFrom(json.at("throughput"));
  if (json.contains("step_time_s")) config.stepTimeS = summaryFrom(json.at("step_time_s"));
  config.peakBytes = json.value("peak_bytes", std::uint64_t{0});
  config.mfu = json.value("mfu", 0.0);
  config.lossFirst = json.value("loss_first", 0.0);
  config.lossLast = json.value("loss_last", 0.0);
  if (json.contains("loss_curve")) {
    config.lossCurve = json.at("loss_curve").get<std::vector<double>>();
  }
  if (json.contains("loss_steps")) {
    config.lossSteps = json.at("loss_steps").get<std::vector<std::int64_t>>();
    if (config.lossSteps.size() != config.lossCurve.size()) config.lossSteps.clear();
  }
  if (json.contains("step_times_s")) {
    config.stepTimes = json.at("step_times_s").get<std::vector<double>>();
  }
  if (json.contains("runs")) {
    for (const Json& run : json.at("runs")) config.runs.push_back(runFrom(run));
  }
  return config;
}

const nlohmann::json& resultsSchema() {
  static const nlohmann::json schema = nlohmann::json::parse(tb::embedded::resultsSchemaJson());
  return schema;
}

}  // namespace

std::string resultsToJson(const AblationResults& results) {
  Json machine{{"cpu_model", results.machine.cpuModel},
               {"cores", results.machine.cores},
               {"threads", results.machine.threads},
               {"matmul_path", results.machine.matmulPath},
               {"libtorch_version", results.machine.libtorchVersion},
               {"device", results.machine.device},
               {"processes", results.machine.processes}};
  Json configurations = Json::array();
  for (const ConfigurationResult& config : results.configurations) {
    configurations.push_back(configurationJson(config));
  }
  const Json document{{"schema_version", results.schemaVersion},
                      {"app_version", results.appVersion},
                      {"created_at", results.createdAt},
                      {"model", results.model},
                      {"steps", results.steps},
                      {"warmup_steps", results.warmupSteps},
                      {"repeats", results.repeats},
                      {"memory_budget_bytes", results.memoryBudgetBytes},
                      {"image_tag", results.imageTag},
                      {"complete", results.complete},
                      {"planned_runs", results.plannedRuns},
                      {"completed_runs", results.completedRuns},
                      {"machine", std::move(machine)},
                      {"configurations", std::move(configurations)}};
  return document.dump(2) + "\n";
}

Expected<AblationResults> parseResults(std::string_view text, std::string_view origin) {
  const Json document = Json::parse(text, nullptr, false);
  const std::string where(origin);
  if (document.is_discarded()) {
    return makeError(ErrorKind::Parse, where + ": not valid JSON");
  }
  const std::vector<json_schema::Violation> violations =
      json_schema::validate(resultsSchema(), document);
  if (!violations.empty()) {
    return makeError(ErrorKind::Parse,
                     where + ": " + violations.front().path + ": " + violations.front().message);
  }
  AblationResults results;
  results.schemaVersion = document.at("schema_version").get<int>();
  results.appVersion = document.at("app_version").get<std::string>();
  results.createdAt = document.at("created_at").get<std::string>();
  results.model = document.value("model", std::string());
  results.steps = document.value("steps", std::int64_t{0});
  results.warmupSteps = document.value("warmup_steps", std::int64_t{0});
  results.repeats = document.value("repeats", 0);
  results.memoryBudgetBytes = document.value("memory_budget_bytes", std::uint64_t{0});
  results.imageTag = document.value("image_tag", std::string());
  const Json& machine = document.at("machine");
  results.machine.cpuModel = machine.at("cpu_model").get<std::string>();
  results.machine.cores = machine.at("cores").get<int>();
  results.machine.threads = machine.value("threads", 0);
  results.machine.matmulPath = machine.value("matmul_path", std::string());
  results.machine.libtorchVersion = machine.value("libtorch_version", std::string());
  results.machine.device = machine.value("device", std::string("cpu"));
  results.machine.processes = machine.value("processes", 1);
  for (const Json& config : document.at("configurations")) {
    results.configurations.push_back(configurationFrom(config));
  }
  if (document.contains("complete")) {
    results.complete = document.at("complete").get<bool>();
    results.plannedRuns = document.value("planned_runs", 0);
    results.completedRuns = document.value("completed_runs", 0);
  } else {
    // Written before the flag existed: the runs recorded say what it would be.
    results.plannedRuns = results.repeats * static_cast<int>(kAblationSteps.size());
    updateCompleteness(results);
  }
  return results;
}

Expected<AblationResults> loadResults(const std::filesystem::path& path) {
  Expected<std::string> text = readFile(path);
  if (!text) return std::move(text).error();
  return parseResults(*text, path.string());
}

Status saveResults(const std::filesystem::path& path, const AblationResults& results) {
  return writeFileAtomically(path, resultsToJson(results));
}

}  // namespace tb::bench
