// Run ids sort by time and stay unique when two runs start in the same second
// (the GUI's ablation starts four at once): UTC timestamp, model, random nonce.
// Events are dumped with invalid UTF-8 replaced, not rejected: a file path in
// a message must never make the log throw.
#include "tb/runs/run_directory.hpp"

#include <cerrno>
#include <cstdio>
#include <random>
#include <system_error>
#include <utility>

#include "tb/common/atomic_file.hpp"
#include "tb/common/utc_time.hpp"
#include "tb/runs/run_store.hpp"

namespace tb::runs {
namespace {

std::string runId(std::string_view modelName) {
  const std::string stamp = utcNow(kCompactUtc);
  std::string model;
  for (const char c : modelName) model += (c == '/' || c == '+' || c == ' ') ? '-' : c;
  std::random_device entropy;
  char nonce[8];
  std::snprintf(nonce, sizeof(nonce), "%04x", entropy() & 0xFFFFU);
  return std::string(stamp) + "-" + model + "-" + nonce;
}

std::string dump(const nlohmann::json& json, int indent) {
  return json.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

Expected<RunDirectory> RunDirectory::create(const std::filesystem::path& requested,
                                            std::string_view modelName) {
  const std::filesystem::path path =
      requested.empty() ? runStoreDirectory() / runId(modelName) : requested;
  std::error_code error;
  std::filesystem::create_directories(path, error);
  if (error) {
    return makeError(writeFailureKind(error.value()),
                     "cannot create run directory " + path.string() + ": " + error.message());
  }
  RunDirectory directory(path);
  directory.events_ =
      std::make_unique<std::ofstream>(path / "events.jsonl", std::ios::out | std::ios::app);
  if (!*directory.events_) {
    const int openErrno = errno;
    return makeError(writeFailureKind(openErrno), "cannot open " +
                                                      (path / "events.jsonl").string() + ": " +
                                                      std::generic_category().message(openErrno));
  }
  return directory;
}

std::filesystem::path rankDirectory(const std::filesystem::path& runDirectory, int rank) {
  return runDirectory / "ranks" / std::to_string(rank);
}

Status RunDirectory::writeConfig(const RunConfigRecord& config) const {
  return writeFileAtomically(path_ / "config.json", dump(toJson(config), 2) + "\n");
}

Status RunDirectory::writeSummary(const RunSummary& summary) const {
  return writeFileAtomically(path_ / "summary.json", dump(toJson(summary), 2) + "\n");
}

Status RunDirectory::appendEvent(std::string_view jsonLine) {
  *events_ << jsonLine << '\n';
  events_->flush();
  if (!*events_) {
    return makeError(ErrorKind::Io, "cannot append to " + (path_ / "events.jsonl").string());
  }
  return {};
}

RunEventLog::RunEventLog(RunDirectory& directory, EventSink sink)
    : directory_(&directory), sink_(std::move(sink)) {}

void RunEventLog::emit(const char* event, nlohmann::json fields) {
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start_;
  fields["event"] = event;
  fields["elapsed_s"] = elapsed.count();
  const std::string line = dump(fields, -1);
  if (sink_) sink_(line);
  if (const Status written = directory_->appendEvent(line); !written && writeError_.empty()) {
    writeError_ = written.error().message;
  }
}

void RunEventLog::emitStep(const StepSample& sample) { emit("step", toJson(sample)); }

void RunEventLog::emitError(RunState state, const std::string& message) {
  emit("error", {{"status", toString(state)}, {"message", message}});
}

void RunEventLog::emitEnd(const RunSummary& summary) {
  emit("end", {{"summary", toJson(summary)}});
}

}  // namespace tb::runs
