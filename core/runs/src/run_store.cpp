// A run is judged by what exists: summary.json decides the state; without it
// the age of the newest file tells a live run from one killed before it could
// write a summary (SIGKILL, a power cut).
#include "tb/runs/run_store.hpp"

#include <algorithm>
#include <system_error>

#include <nlohmann/json.hpp>

#include "tb/common/atomic_file.hpp"
#include "tb/common/paths.hpp"

namespace tb::runs {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::optional<fs::file_time_type> writeTime(const fs::path& path) {
  std::error_code error;
  const fs::file_time_type time = fs::last_write_time(path, error);
  if (error) return std::nullopt;
  return time;
}

Expected<json> readJsonFile(const fs::path& path) {
  auto text = readFile(path);
  if (!text) return text.error();
  json parsed = json::parse(*text, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    return makeError(ErrorKind::Parse, path.filename().string() + " is not a JSON object");
  }
  return parsed;
}

void applyConfig(const RunConfigRecord& config, RunRecord& record) {
  record.totalSteps = config.steps;
  record.model = config.model.name;
  record.recompute = config.recompute;
}

void applySummary(const RunSummary& summary, RunRecord& record) {
  record.state = summary.state;
  record.message = summary.message;
  if (!summary.model.empty()) record.model = summary.model;
  record.steps = summary.steps;
  record.tokensPerSecond = summary.tokensPerSecond;
  record.peakBytes = summary.peakBytes;
  record.lossFirst = summary.lossFirst;
  record.lossLast = summary.lossLast;
  if (!summary.recompute.empty()) record.recompute = summary.recompute;
}

RunRecord unreadable(RunRecord record, std::string reason) {
  record.state = RunState::Unreadable;
  record.message = std::move(reason);
  return record;
}

}  // namespace

fs::path runStoreDirectory() { return dataDirectory() / "runs"; }

Expected<RunConfigRecord> readRunConfig(const fs::path& runDir) {
  auto document = readJsonFile(runDir / "config.json");
  if (!document) return document.error();
  auto config = configFromJson(*document);
  if (!config) return makeError(ErrorKind::Parse, "config.json: " + config.error().message);
  return config;
}

Expected<RunSummary> readRunSummary(const fs::path& runDir) {
  const fs::path path = runDir / "summary.json";
  if (!writeTime(path)) return parseSummaryText({});
  auto text = readFile(path);
  if (!text) return text.error();
  return parseSummaryText(*text);
}

bool isRunDirectory(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(path / "config.json", error);
}

RunRecord readRun(const fs::path& runDir, std::chrono::seconds runningGrace) {
  RunRecord record;
  record.dir = runDir;
  record.id = runDir.filename().string();
  const auto configTime = writeTime(runDir / "config.json");
  if (!configTime) {
    // RunDirectory::create opens events.jsonl before the run writes its
    // config.json: a run killed in between leaves only that (and maybe a
    // config.json.tmp). It is an interrupted run, not a corrupt one.
    const auto eventsTime = writeTime(runDir / "events.jsonl");
    if (!eventsTime) return unreadable(std::move(record), "config.json is missing");
    record.startedAt = std::chrono::time_point_cast<std::chrono::system_clock::duration>(
        std::chrono::file_clock::to_sys(*eventsTime));
    const bool recent = fs::file_time_type::clock::now() - *eventsTime < runningGrace;
    record.state = recent ? RunState::Running : RunState::Interrupted;
    if (!recent) record.message = "killed before it wrote config.json";
    return record;
  }
  record.startedAt = std::chrono::time_point_cast<std::chrono::system_clock::duration>(
      std::chrono::file_clock::to_sys(*configTime));
  auto config = readRunConfig(runDir);
  if (!config) return unreadable(std::move(record), config.error().message);
  applyConfig(*config, record);

  auto summary = readRunSummary(runDir);
  if (summary) {
    applySummary(*summary, record);
    return record;
  }
  if (summary.error().kind != ErrorKind::NotFound) {
    return unreadable(std::move(record), summary.error().message);
  }
  const fs::file_time_type newest =
      std::max(*configTime, writeTime(runDir / "events.jsonl").value_or(*configTime));
  const bool recent = fs::file_time_type::clock::now() - newest < runningGrace;
  record.state = recent ? RunState::Running : RunState::Interrupted;
  if (!recent) record.message = "ended without a summary (the process was killed)";
  return record;
}

Expected<std::vector<RunRecord>> listRuns(const fs::path& store,
                                          std::chrono::seconds runningGrace) {
  std::error_code error;
  if (!fs::exists(store, error)) return std::vector<RunRecord>{};
  std::vector<RunRecord> records;
  fs::directory_iterator it(store, error);
  if (error)
    return makeError(ErrorKind::Io, "cannot list " + store.string() + ": " + error.message());
  for (const fs::directory_entry& entry : it) {
    if (entry.is_directory(error)) records.push_back(readRun(entry.path(), runningGrace));
  }
  std::sort(records.begin(), records.end(),
            [](const RunRecord& a, const RunRecord& b) { return a.id > b.id; });
  return records;
}

}  // namespace tb::runs
