// The JSON form is checked against its schema first, so the error a user sees
// names the JSON path; rules across runs are then shared with the CSV reader.
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cluster_rows.hpp"
#include "tb/bench/cluster_import.hpp"
#include "tb/common/atomic_file.hpp"
#include "tb/common/json_schema.hpp"
#include "tb/common/text.hpp"

namespace tb::embedded {
std::string_view clusterResultsSchemaJson();
}

namespace tb::bench {

namespace {

using Json = nlohmann::ordered_json;

std::optional<double> optionalField(const Json& run, const char* name) {
  if (!run.contains(name)) return std::nullopt;
  return run.at(name).get<double>();
}

}  // namespace

Expected<std::vector<ConfigurationResult>> parseClusterJson(std::string_view text,
                                                            std::string_view origin) {
  const std::string file(origin);
  const Json document = Json::parse(text, nullptr, false);
  if (document.is_discarded()) return makeError(ErrorKind::Parse, file + ": not valid JSON");
  static const nlohmann::json schema =
      nlohmann::json::parse(tb::embedded::clusterResultsSchemaJson());
  const std::vector<json_schema::Violation> violations = json_schema::validate(schema, document);
  if (!violations.empty()) {
    return makeError(ErrorKind::Parse,
                     file + ": " + violations.front().path + ": " + violations.front().message);
  }
  std::vector<detail::ClusterRow> rows;
  const Json& runs = document.at("runs");
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const Json& run = runs[i];
    detail::ClusterRow row;
    row.where = file + ": " + json_schema::indexPath("$.runs", i);
    row.label = run.at("label").get<std::string>();
    row.model = run.at("model").get<std::string>();
    row.gpus = run.at("gpus").get<int>();
    row.tokensPerSPerGpu = optionalField(run, "tokens_per_s_per_gpu");
    row.tflopsPerGpu = optionalField(run, "tflops_per_gpu");
    row.peakMemoryGib = optionalField(run, "peak_memory_gib");
    row.stepTimeS = optionalField(run, "step_time_s");
    row.excludedSeconds = optionalField(run, "excluded_seconds");
    row.excludedKinds = run.value("excluded_kinds", std::vector<std::string>{});
    if (run.contains("losses") || run.contains("loss_steps")) {
      row.lossCurve = run.value("losses", std::vector<double>{});
      row.lossSteps = run.value("loss_steps", std::vector<std::int64_t>{});
      if (row.lossSteps.size() != row.lossCurve.size()) {
        return makeError(ErrorKind::Parse,
                         row.where + ": loss_steps has " + std::to_string(row.lossSteps.size()) +
                             " entries and losses " + std::to_string(row.lossCurve.size()));
      }
    }
    rows.push_back(std::move(row));
  }
  return detail::configurationsFromRows(rows);
}

std::string clusterJsonText(const std::vector<ClusterRun>& runs) {
  Json list = Json::array();
  for (const ClusterRun& run : runs) {
    Json entry{{"label", run.label}, {"model", run.model}, {"gpus", run.gpus}};
    const auto put = [&entry](const char* name, const std::optional<double>& value) {
      if (value) entry[name] = *value;
    };
    put("tokens_per_s_per_gpu", run.tokensPerSPerGpu);
    put("tflops_per_gpu", run.tflopsPerGpu);
    put("peak_memory_gib", run.peakMemoryGib);
    put("step_time_s", run.stepTimeS);
    put("excluded_seconds", run.excludedSeconds);
    if (!run.excludedKinds.empty()) entry["excluded_kinds"] = run.excludedKinds;
    if (!run.notes.empty()) entry["notes"] = run.notes;
    if (!run.lossCurve.empty()) {
      entry["loss_steps"] = run.lossSteps;
      entry["losses"] = run.lossCurve;
    }
    list.push_back(std::move(entry));
  }
  const Json document{{"schema", "trainbench-cluster-results"}, {"version", 1}, {"runs", list}};
  return document.dump(2) + "\n";
}

Expected<std::vector<ConfigurationResult>> importClusterResults(const std::filesystem::path& file) {
  const std::string suffix = toLower(file.extension().string());
  if (suffix != ".csv" && suffix != ".json") {
    return makeError(ErrorKind::BadInput,
                     file.string() + ": unknown format '" + suffix + "' (use .csv or .json)");
  }
  Expected<std::string> text = readFile(file);
  if (!text) return std::move(text).error();
  return suffix == ".csv" ? parseClusterCsv(*text, file.string())
                          : parseClusterJson(*text, file.string());
}

}  // namespace tb::bench
