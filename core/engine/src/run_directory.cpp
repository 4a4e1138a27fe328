// Run ids sort by time and stay unique when two runs start in the same second
// (the GUI's ablation starts four at once): UTC timestamp, model, random nonce.
#include "run_directory.hpp"

#include <random>

#include "tb/common/atomic_file.hpp"
#include "tb/common/paths.hpp"
#include "tb/common/utc_time.hpp"

namespace tb::engine {
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

}  // namespace

Expected<RunDirectory> RunDirectory::create(const std::filesystem::path& requested,
                                            std::string_view modelName) {
  const std::filesystem::path path =
      requested.empty() ? dataDirectory() / "runs" / runId(modelName) : requested;
  std::error_code error;
  std::filesystem::create_directories(path, error);
  if (error) {
    return makeError(ErrorKind::Io,
                     "cannot create run directory " + path.string() + ": " + error.message());
  }
  RunDirectory directory(path);
  directory.events_ = std::make_unique<std::ofstream>(path / "events.jsonl",
                                                      std::ios::out | std::ios::app);
  if (!*directory.events_) {
    return makeError(ErrorKind::Io, "cannot open " + (path / "events.jsonl").string());
  }
  return directory;
}

Status RunDirectory::writeConfig(std::string_view json) const {
  return writeFileAtomically(path_ / "config.json", std::string(json) + "\n");
}

Status RunDirectory::writeSummary(std::string_view json) const {
  return writeFileAtomically(path_ / "summary.json", std::string(json) + "\n");
}

Status RunDirectory::appendEvent(std::string_view jsonLine) {
  *events_ << jsonLine << '\n';
  events_->flush();
  if (!*events_) {
    return makeError(ErrorKind::Io, "cannot append to " + (path_ / "events.jsonl").string());
  }
  return {};
}

}  // namespace tb::engine
