// A text log is read through one following LineReader and one LineSession
// for as long as the file is the same file; each poll that fed lines
// finishes a copy of the session into the import of the bytes so far. A
// TensorBoard run is read on the same way, by TensorboardFollow. Any other
// document is read again whole when what the path holds changed. A document
// read that fails (a JSON file caught while its writer rewrites it) is a
// problem of that poll, retried on the next change.
#include "tb/logs/log_follow.hpp"

#include <algorithm>
#include <system_error>
#include <utility>
#include <vector>

#include "file_identity.hpp"
#include "format_parser.hpp"
#include "import_parts.hpp"
#include "line_reader.hpp"
#include "line_session.hpp"
#include "tensorboard_follow.hpp"

namespace tb::logs {

namespace fs = std::filesystem;

namespace {

using detail::FileIdentity;
using detail::identityOf;

// Event files sit in subfolders (torchtitan: tb/<date>/rank_0/), as the
// importer searches them.
constexpr int kSignatureDepth = 4;

void appendSignature(std::string& signature, const fs::path& file) {
  const auto identity = identityOf(file);
  if (!identity) return;
  signature += file.string() + '\t' + std::to_string(identity->inode) + '\t' +
               std::to_string(identity->size) + '\t' + std::to_string(identity->modifiedNs) + '\n';
}

// What a document target is now: every regular file under it with its
// inode, size and modification time. Empty: the path is gone.
std::string documentSignature(const fs::path& target) {
  std::string signature;
  std::error_code ec;
  if (!fs::is_directory(target, ec)) {
    appendSignature(signature, target);
    return signature;
  }
  std::vector<fs::path> files;
  fs::recursive_directory_iterator it(target, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it.depth() >= kSignatureDepth) it.disable_recursion_pending();
    if (std::error_code entry; it->is_regular_file(entry)) files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) appendSignature(signature, file);
  return signature.empty() ? std::string("(empty folder)") : signature;
}

bool sameRecords(const ImportedLog& a, const ImportedLog& b) {
  return a.run.records == b.run.records && a.run.lastStep == b.run.lastStep &&
         a.run.summary == b.run.summary && a.run.partial == b.run.partial &&
         a.run.steps.size() == b.run.steps.size() &&
         (a.run.steps.empty() || a.run.steps.back() == b.run.steps.back());
}

}  // namespace

struct LogFollower::State {
  fs::path path;
  ImportOptions options;
  std::optional<LossPattern> pattern;
  std::optional<detail::ImportTarget> target;
  const detail::FormatSpec* spec = nullptr;
  // A text log: the open file, its identity, the parser's state.
  std::optional<detail::LineReader> reader;
  std::optional<detail::LineSession> session;
  FileIdentity identity;
  // A document: what it was when last read; a TensorBoard run's reading.
  std::string signature;
  std::optional<detail::TensorboardFollow> events;
  std::optional<ImportedLog> latest;

  [[nodiscard]] const LossPattern* lossPattern() const { return pattern ? &*pattern : nullptr; }
  Expected<FollowUpdate> pollTarget();
  Expected<FollowUpdate> pollLines();
  Expected<FollowUpdate> pollDocument();
  void readEvents(FollowUpdate& update);
  std::optional<std::string> checkSameFile(const FileIdentity& now);
  Status snapshotLines(FollowUpdate& update);
  void take(Expected<ImportedLog> imported, FollowUpdate& update);
};

// A file named that does not exist yet, or holds no line of a known format
// yet (a job that just started), is waited for: the next poll looks again.
Expected<FollowUpdate> LogFollower::State::pollTarget() {
  auto resolved = detail::resolveTarget(path, options.format);
  if (!resolved) {
    const ErrorKind kind = resolved.error().kind;
    if (kind != ErrorKind::NotFound && kind != ErrorKind::Parse) return std::move(resolved).error();
    FollowUpdate waiting;
    waiting.problem = "waiting: " + resolved.error().message;
    return waiting;
  }
  target = std::move(*resolved);
  spec = &detail::formatSpec(target->format);
  return detail::isDocument(*spec) ? pollDocument() : pollLines();
}

std::optional<std::string> LogFollower::State::checkSameFile(const FileIdentity& now) {
  if (now.device != identity.device || now.inode != identity.inode)
    return target->path.string() + ": replaced by another file; reading it from its start";
  if (now.size < reader->bytesRead())
    return target->path.string() + ": truncated to " + std::to_string(now.size) + " bytes after " +
           std::to_string(reader->bytesRead()) + " were read; reading it from its start";
  return std::nullopt;
}

void LogFollower::State::take(Expected<ImportedLog> imported, FollowUpdate& update) {
  // No record yet is not an error of a file still being written.
  if (!imported) return;
  if (!latest || !sameRecords(*latest, *imported)) update.grew = true;
  latest = std::move(*imported);
}

// The import of the lines so far: a copy of the session is finished, as
// importLog finishes its session at the end of the same bytes, and the
// original reads on.
Status LogFollower::State::snapshotLines(FollowUpdate& update) {
  detail::LineSession copy(*session);
  runs::ImportedRun run = detail::startRun(*spec, target->path);
  std::vector<std::string> notes;
  const bool endedMidLine = reader->pendingBytes() > 0;
  if (Status finished = copy.finish(run, endedMidLine, notes); !finished) return finished;
  if (auto note = detail::longLinesNote(reader->skippedLongLines())) notes.push_back(*note);
  take(detail::assembleImport(*spec, options, copy.collector(), std::move(run), endedMidLine,
                              std::move(notes)),
       update);
  return {};
}

Expected<FollowUpdate> LogFollower::State::pollLines() {
  FollowUpdate update;
  const auto now = identityOf(target->path);
  if (!now) {
    update.problem = target->path.string() + ": no such file any more; what was read is kept";
    return update;
  }
  if (reader) {
    update.restarted = checkSameFile(*now);
    if (update.restarted) {
      reader.reset();
      session.reset();
    }
  }
  if (!reader) {
    auto opened = detail::LineReader::openFollowing(target->path);
    if (!opened) return std::move(opened).error();
    reader.emplace(std::move(*opened));
    session.emplace(*spec, target->path, lossPattern(), detail::warmUpFor(*spec, options));
    identity = *now;
  } else {
    reader->resume();
  }
  bool fed = false;
  if (Status read = detail::guardedRead(*spec, target->path,
                                        [&] { return session->feedLines(*reader, fed); });
      !read)
    return read.error();
  if (fed || update.restarted)
    if (Status taken = snapshotLines(update); !taken) return taken.error();
  return update;
}

Expected<FollowUpdate> LogFollower::State::pollDocument() {
  FollowUpdate update;
  std::string now = documentSignature(target->path);
  if (now.empty()) {
    update.problem = target->path.string() + ": no such file any more; what was read is kept";
    return update;
  }
  if (now == signature) return update;
  signature = std::move(now);
  if (spec->format == Format::Tensorboard) {
    readEvents(update);
    return update;
  }
  detail::StepCollector collector(detail::warmUpFor(*spec, options));
  runs::ImportedRun run = detail::startRun(*spec, target->path);
  std::vector<std::string> notes;
  const Status read =
      detail::readDocumentTarget(*spec, target->path, pattern.has_value(), run, collector, notes);
  if (!read) {
    // Read again when it next changes: its writer may be mid-rewrite.
    update.problem = read.error().message + " (read again when it changes)";
    return update;
  }
  take(detail::assembleImport(*spec, options, collector, std::move(run), false, std::move(notes)),
       update);
  return update;
}

// What the run's event files gained; a read that fails is a problem of
// this poll, and the next change reads every file again.
void LogFollower::State::readEvents(FollowUpdate& update) {
  if (!events)
    events.emplace(target->path, detail::startRun(*spec, target->path),
                   detail::warmUpFor(*spec, options));
  detail::TensorboardFollow::Read read;
  const Status status = detail::guardedRead(*spec, target->path, [&]() -> Status {
    auto answer = events->readOn();
    if (!answer) return std::move(answer).error();
    read = std::move(*answer);
    return {};
  });
  if (!status) {
    update.problem = status.error().message + " (read again when it changes)";
    return;
  }
  if (read.readAgain) update.restarted = *read.readAgain + "; reading the run from its start";
  if (!read.fed) return;
  auto [run, collector] = events->snapshot();
  std::vector<std::string> notes;
  detail::noteUnusedLossPattern(*spec, pattern.has_value(), notes);
  take(detail::assembleImport(*spec, options, collector, std::move(run), false, std::move(notes)),
       update);
}

Expected<LogFollower> LogFollower::open(const std::filesystem::path& path,
                                        const ImportOptions& options) {
  if (Status valid = detail::checkImportOptions(options); !valid) return valid.error();
  auto pattern = detail::compileLossPattern(options);
  if (!pattern) return std::move(pattern).error();
  auto state = std::make_unique<State>();
  state->path = path;
  state->options = options;
  state->pattern = std::move(*pattern);
  return LogFollower(std::move(state));
}

LogFollower::LogFollower(std::unique_ptr<State> state) : state_(std::move(state)) {}
LogFollower::~LogFollower() = default;
LogFollower::LogFollower(LogFollower&& other) noexcept = default;
LogFollower& LogFollower::operator=(LogFollower&& other) noexcept = default;

Expected<FollowUpdate> LogFollower::poll() {
  if (!state_->target) return state_->pollTarget();
  return detail::isDocument(*state_->spec) ? state_->pollDocument() : state_->pollLines();
}

const std::optional<ImportedLog>& LogFollower::latest() const noexcept { return state_->latest; }

bool LogFollower::ended() const noexcept { return state_->latest && runEnded(*state_->latest); }

const std::filesystem::path& LogFollower::path() const noexcept { return state_->path; }

std::uint64_t LogFollower::bytesRead() const noexcept {
  return state_->reader ? state_->reader->bytesRead() : 0;
}

bool runEnded(const ImportedLog& log) {
  const runs::ImportedRun& run = log.run;
  return !run.partial && (run.summary.has_value() || run.plannedSteps.has_value());
}

}  // namespace tb::logs
