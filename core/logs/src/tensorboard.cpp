// TensorBoard event files (events.out.tfevents.*): TFRecord framing
// (tfrecord.hpp) around Event messages (tensorboard_event.proto), written by
// torchtitan, Megatron-LM, NeMo/Lightning and the Trainer's TensorBoard
// callback. The scalars we know by tag become ImportedStep fields; every
// other tag, and every other kind of summary, is passed over. Facts:
// docs/LOG_FORMATS.md, "TensorBoard event files".
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "excluded_time.hpp"
#include "file_identity.hpp"
#include "format_parser.hpp"
#include "tensorboard_event.pb.h"
#include "tensorboard_files.hpp"
#include "tensorboard_follow.hpp"
#include "tensorboard_scalars.hpp"
#include "tb/common/units.hpp"
#include "tfrecord.hpp"

namespace tb::logs::detail {
// Named, not anonymous: TensorboardFollow's state holds an EventRun.
namespace tensorboard {

namespace fs = std::filesystem;
namespace pb = tb::logs::tfevents;

constexpr std::string_view kFileVersionPrefix = "brain.Event:";

// ---------------------------------------------------------------------------
// Steps in order, in bounded memory.

/// Merges the scalars of one step into one record and hands records to the
/// sink in step order. Writers log a step's scalars together, but nothing
/// forbids interleaving, so a window of recent steps stays open; once it is
/// full the oldest is handed on. A step that comes back after it was handed
/// on cannot be merged any more and is dropped (the window is far wider than
/// any writer's interleaving).
class StepMerger {
 public:
  static constexpr std::size_t kWindow = 64;

  explicit StepMerger(StepSink& sink) : sink_(sink) {}
  /// `other`'s open steps, handing records to `sink`.
  StepMerger(const StepMerger& other, StepSink& sink)
      : sink_(sink), pending_(other.pending_), emittedUpTo_(other.emittedUpTo_) {}

  /// The open record of `step`, or nullptr when that step was handed on.
  runs::ImportedStep* at(std::int64_t step) {
    if (emittedUpTo_ && step <= *emittedUpTo_) return nullptr;
    auto [it, inserted] = pending_.try_emplace(step);
    if (!inserted) return &it->second;
    it->second.step = step;
    while (pending_.size() > kWindow) emitOldest();
    // A step older than everything in a full window is closed at once
    // (empty, so it is no record); its values are dropped like any late
    // step's.
    const auto open = pending_.find(step);
    return open == pending_.end() ? nullptr : &open->second;
  }

  void flushAll() {
    while (!pending_.empty()) emitOldest();
  }

 private:
  void emitOldest() {
    auto oldest = pending_.begin();
    emittedUpTo_ = oldest->first;
    // A step that only had run-level values or unreadable ones is no record.
    runs::ImportedStep bare;
    bare.step = oldest->first;
    if (oldest->second != bare) sink_.add(oldest->second);
    pending_.erase(oldest);
  }

  StepSink& sink_;
  std::map<std::int64_t, runs::ImportedStep> pending_;
  std::optional<std::int64_t> emittedUpTo_;
};

// ---------------------------------------------------------------------------
// Files.

struct FileEnd {
  bool truncated = false;         ///< the file stopped inside a record
  std::uint64_t truncatedAt = 0;  ///< byte offset of that record
  std::uint64_t records = 0;      ///< complete records, the file version's included
  std::uint64_t consumed = 0;     ///< bytes read: the file's size when it was read

  /// Where reading goes on when the file grows: after its last complete record.
  [[nodiscard]] std::uint64_t resumeAt() const noexcept {
    return truncated ? truncatedAt : consumed;
  }
};

std::string printable(std::string_view text) {
  std::string out;
  for (const char c : text.substr(0, 40)) {
    out += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  return out;
}

/// Calls onEvent(const pb::Event&) for every Event after the file-version
/// record, from where `from` ended, until it returns false.
template <class OnEvent>
Expected<FileEnd> forEachEvent(const fs::path& file, const FileEnd& from, OnEvent&& onEvent) {
  const std::string origin = file.string();
  std::ifstream in(file, std::ios::binary);
  if (!in) return makeError(ErrorKind::Io, origin + ": cannot be opened for reading");
  TfRecordReader reader(in, origin);
  FileEnd end;
  end.records = from.records;
  end.consumed = from.resumeAt();
  if (end.consumed > 0) {
    in.seekg(static_cast<std::streamoff>(end.consumed));
    reader.resumeAt(end.consumed);
  }
  std::string data;
  pb::Event event;
  for (;;) {
    const auto next = reader.next(data);
    end.consumed = reader.offset();
    if (next == TfRecordReader::Next::End) return end;
    if (next == TfRecordReader::Next::Truncated) {
      end.truncated = true;
      end.truncatedAt = reader.recordOffset();
      return end;
    }
    if (next == TfRecordReader::Next::Failed) return *reader.error();
    const bool first = end.records == 0;
    ++end.records;
    const auto where = [&] { return origin + ": byte " + std::to_string(reader.recordOffset()); };
    if (next == TfRecordReader::Next::Skipped) {
      // Only graph defs and the like come this big; never the first record.
      if (first) {
        return makeError(ErrorKind::Parse, where() +
                                               ": expected a first record holding the file "
                                               "version 'brain.Event:…', found a record of "
                                               "more than 16 MiB");
      }
      continue;
    }
    if (!event.ParseFromString(data)) {
      return makeError(ErrorKind::Parse,
                       where() + ": expected a TensorBoard Event message, found " +
                           std::to_string(data.size()) + " bytes that do not parse as one");
    }
    if (first) {
      const std::string& version = event.file_version();
      if (!event.has_file_version() || !version.starts_with(kFileVersionPrefix)) {
        return makeError(ErrorKind::Parse,
                         where() +
                             ": expected a first Event with file_version 'brain.Event:…', found " +
                             (event.has_file_version() ? "'" + printable(version) + "'"
                                                       : std::string("an Event without one")));
      }
      continue;
    }
    if (!onEvent(static_cast<const pb::Event&>(event))) return end;
  }
}

// ---------------------------------------------------------------------------
// One run from its files.

/// One event file and how far it was read.
struct FileProgress {
  fs::path path;
  FileIdentity identity;                  ///< when its reading began
  FileEnd end;                            ///< where its reading stopped
  std::optional<std::int64_t> firstStep;  ///< of the first scalar we read in it
  std::optional<std::int64_t> lastStep;   ///< the largest step of an event with a summary
};

class RunReader {
 public:
  RunReader(runs::ImportedRun& run, StepSink& sink) : run_(run), merger_(sink) {}
  /// `other`'s state, writing to `run` and `sink`.
  RunReader(const RunReader& other, runs::ImportedRun& run, StepSink& sink)
      : run_(run),
        merger_(other.merger_, sink),
        plugins_(other.plugins_),
        summary_(other.summary_),
        excluded_(other.excluded_),
        batch_(other.batch_),
        batchVaries_(other.batchVaries_),
        framework_(other.framework_),
        mixedWriters_(other.mixedWriters_) {}
  RunReader(const RunReader&) = delete;
  RunReader& operator=(const RunReader&) = delete;

  /// The first step at which the file has a scalar we read: a later file that
  /// starts at or before a step of an earlier one is a restart from a
  /// checkpoint, and replaces the earlier file's steps from there on.
  Expected<std::optional<std::int64_t>> firstStep(const fs::path& file) {
    std::optional<std::int64_t> first;
    std::array<TagPlugin, kKnownTags.size()> plugins{};
    auto end = forEachEvent(file, FileEnd{}, [&](const pb::Event& event) {
      if (!event.has_summary()) return true;
      for (const auto& value : event.summary().value()) {
        const auto index = lookupTag(value.tag());
        if (!index) continue;
        rememberPlugin(value, plugins[*index]);
        if (scalarOf(value, plugins[*index])) {
          first = event.step();
          return false;
        }
      }
      return true;
    });
    if (!end) return std::move(end).error();
    return first;
  }

  /// Reads one file's scalars on from where its reading stopped, leaving
  /// out steps at or after `cut`.
  Status read(FileProgress& file, std::optional<std::int64_t> cut) {
    auto end = forEachEvent(file.path, file.end, [&](const pb::Event& event) {
      if (!event.has_summary()) return true;
      if (cut && event.step() >= *cut) return true;
      file.lastStep = std::max(file.lastStep.value_or(event.step()), event.step());
      for (const auto& value : event.summary().value()) {
        if (const auto kind = nonTrainingRuntimeTagKind(value.tag())) {
          if (auto seconds = scalarOf(value, TagPlugin::Unknown)) excluded_.add(*kind, *seconds);
          continue;
        }
        const auto index = lookupTag(value.tag());
        if (!index) continue;
        rememberPlugin(value, plugins_[*index]);
        if (auto number = scalarOf(value, plugins_[*index])) {
          if (!file.firstStep) file.firstStep = event.step();
          apply(kKnownTags[*index].target, event.step(), *number);
          credit(kKnownTags[*index].framework);
        }
      }
      return true;
    });
    if (!end) return std::move(end).error();
    file.end = *end;
    return {};
  }

  void finish() {
    merger_.flushAll();
    if (batch_ && !batchVaries_) run_.globalBatch = batch_;
    if (summary_ != runs::ImportedSummary{}) run_.summary = summary_;
    // The format says TensorBoard; the tags say who wrote it.
    if (framework_ && !mixedWriters_) run_.framework = std::string(*framework_);
  }

 private:
  void apply(Target target, std::int64_t step, double value) {
    switch (target) {
      case Target::WorldSize:
        if (value >= 1.0 && value <= 1e7) run_.worldSize = static_cast<int>(std::lround(value));
        return;
      case Target::RunRuntimeSeconds:
        summary_.runtimeSeconds = value;
        summary_.excluded = excluded_.takeForSummary();
        return;
      case Target::RunSamplesPerSecond: summary_.samplesPerSecond = value; return;
      case Target::RunStepsPerSecond: summary_.stepsPerSecond = value; return;
      case Target::RunTotalFlos: summary_.totalFlos = value; return;
      case Target::RunLoss: summary_.loss = value; return;
      default: break;
    }
    runs::ImportedStep* record = merger_.at(step);
    if (record == nullptr) return;
    switch (target) {
      case Target::Loss: record->loss = value; break;
      case Target::LearningRate: record->learningRate = value; break;
      case Target::GradNorm: record->gradNorm = value; break;
      case Target::StepTimeSeconds: record->stepTimeSeconds = value; break;
      case Target::TokensPerSecondPerGpu:
        record->tokensPerSecond = runs::ScopedRate{value, runs::RateScope::PerGpu};
        break;
      case Target::TflopsPerGpu: record->tflopsPerGpu = value; break;
      case Target::MfuPercent: record->mfu = value / 100.0; break;
      case Target::MemoryMaxReservedGiB:
        if (memoryKind("max_reserved")) record->memoryBytes = value * kGiB;
        break;
      case Target::MemoryMaxAllocatedBytes:
        if (memoryKind("max_allocated")) record->memoryBytes = value;
        break;
      case Target::GlobalBatch:
        if (value >= 1.0 && value < 9.0e18) {
          const auto batch = static_cast<std::int64_t>(std::llround(value));
          record->globalBatch = batch;
          if (batch_ && *batch_ != batch) batchVaries_ = true;
          batch_ = batch;
        }
        break;
      default: break;
    }
  }

  void credit(std::string_view framework) {
    if (framework.empty()) return;
    if (framework_ && *framework_ != framework) mixedWriters_ = true;
    framework_ = framework;
  }

  /// One kind of memory per run: the first one seen.
  bool memoryKind(std::string_view kind) {
    if (run_.memoryKind.empty()) run_.memoryKind = kind;
    return run_.memoryKind == kind;
  }

  runs::ImportedRun& run_;
  StepMerger merger_;
  std::array<TagPlugin, kKnownTags.size()> plugins_{};
  runs::ImportedSummary summary_;
  ExcludedTimeTally excluded_;  ///< the Trainer's eval/predict runtimes before its summary
  std::optional<std::int64_t> batch_;
  bool batchVaries_ = false;
  std::optional<std::string_view> framework_;
  bool mixedWriters_ = false;
};

// ---------------------------------------------------------------------------
// A run's files, read whole or on from where they were read.

/// The reading of a run's event files in their order, remembering how far
/// each was read so that the newest can be read on as it grows.
class EventRun {
 public:
  EventRun(runs::ImportedRun& run, StepSink& sink) : run_(run), reader_(run, sink) {}
  /// `other`'s state, writing to `run` and `sink`.
  EventRun(const EventRun& other, runs::ImportedRun& run, StepSink& sink)
      : run_(run), reader_(other.reader_, run, sink), files_(other.files_) {}
  EventRun(const EventRun&) = delete;
  EventRun& operator=(const EventRun&) = delete;

  /// Every file from its start, as a one-shot import reads them.
  Status readAll(const std::vector<fs::path>& paths) {
    // cuts[i]: where file i is superseded by a later restart (the lowest
    // first step of any later file), as TensorBoard itself drops such
    // orphaned steps.
    std::vector<std::optional<std::int64_t>> cuts(paths.size());
    std::optional<std::int64_t> laterFirst;
    for (std::size_t i = paths.size(); i-- > 0;) {
      cuts[i] = laterFirst;
      if (i == 0) break;
      auto first = reader_.firstStep(paths[i]);
      if (!first) return std::move(first).error();
      if (*first && (!laterFirst || **first < *laterFirst)) laterFirst = *first;
    }
    for (std::size_t i = 0; i < paths.size(); ++i) {
      if (Status read = readFile(paths[i], cuts[i]); !read) return read;
    }
    return {};
  }

  /// What stops reading on from where the files were read, if anything.
  [[nodiscard]] std::optional<std::string> whyReadAgain(const std::vector<fs::path>& paths) const {
    for (std::size_t i = 0; i < files_.size(); ++i) {
      const FileProgress& file = files_[i];
      const std::string name = file.path.string();
      if (i >= paths.size() || paths[i] != file.path)
        return name + ": no longer at its place among the run's event files";
      const auto now = identityOf(file.path);
      if (!now) return name + ": no such file any more";
      if (!now->sameFile(file.identity)) return name + ": replaced by another file";
      const bool newest = i + 1 == files_.size();
      if (now->size < file.end.consumed || (!newest && now->size != file.end.consumed))
        return name + ": " + std::to_string(now->size) + " bytes after " +
               std::to_string(file.end.consumed) + " were read" +
               (newest ? " (truncated)" : " (an earlier file written again)");
    }
    return std::nullopt;
  }

  /// Reads the newest file on and every file after it from its start; the
  /// answer says why the whole run must be read again instead (a restart
  /// from a checkpoint), and `fed` whether anything was new.
  Expected<std::optional<std::string>> readOn(const std::vector<fs::path>& paths, bool& fed) {
    fed = false;
    for (std::size_t i = files_.empty() ? 0 : files_.size() - 1; i < paths.size(); ++i) {
      if (i == files_.size()) {
        if (Status read = readFile(paths[i], std::nullopt); !read) return read.error();
        fed = true;
      } else {
        const FileEnd before = files_[i].end;
        if (Status read = reader_.read(files_[i], std::nullopt); !read) return read.error();
        const FileEnd& after = files_[i].end;
        fed = fed || after.records != before.records || after.truncated != before.truncated;
      }
      if (auto restart = restartIn(i)) return restart;
    }
    return std::optional<std::string>();
  }

  /// The run's metadata, and whether its newest file says it is still going.
  void finish() {
    reader_.finish();
    if (files_.empty()) return;
    // Only the last file says whether the run is still going: an earlier one
    // cut short was a killed run that a later file resumed.
    const FileEnd& last = files_.back().end;
    const std::string lastFile = files_.back().path.string();
    if (last.records == 0) {
      run_.partial = true;
      run_.partialReason = lastFile + " holds no complete record yet (a writer that just started)";
    } else if (last.truncated) {
      run_.partial = true;
      run_.partialReason = lastFile + " ends inside the record at byte " +
                           std::to_string(last.truncatedAt) + " (a writer still going, or killed)";
    }
  }

 private:
  Status readFile(const fs::path& path, std::optional<std::int64_t> cut) {
    FileProgress file;
    file.path = path;
    file.identity = identityOf(path).value_or(FileIdentity{});
    if (Status read = reader_.read(file, cut); !read) return read;
    files_.push_back(std::move(file));
    return {};
  }

  /// File i starts at or before a step an earlier file has: a restart from
  /// a checkpoint, whose cut reading on cannot apply to what was read.
  [[nodiscard]] std::optional<std::string> restartIn(std::size_t i) const {
    const FileProgress& file = files_[i];
    if (!file.firstStep) return std::nullopt;
    std::optional<std::int64_t> earlier;
    for (std::size_t j = 0; j < i; ++j)
      if (files_[j].lastStep)
        earlier = std::max(earlier.value_or(*files_[j].lastStep), *files_[j].lastStep);
    if (!earlier || *file.firstStep > *earlier) return std::nullopt;
    return file.path.string() + " starts at step " + std::to_string(*file.firstStep) +
           ", at or before step " + std::to_string(*earlier) +
           " of the earlier files (a restart from a checkpoint, which replaces their steps "
           "from there on)";
  }

  runs::ImportedRun& run_;
  RunReader reader_;
  std::vector<FileProgress> files_;
};

}  // namespace tensorboard

namespace fs = std::filesystem;
using tensorboard::eventFiles;
using tensorboard::EventRun;

bool tensorboardClaimsHead(std::string_view head) {
  // The first record is the tiny file-version Event; it must fit the head.
  std::istringstream in{std::string(head)};
  TfRecordReader reader(in, "head", {.maxRecordBytes = head.size(), .maxKeptBytes = head.size()});
  std::string data;
  if (reader.next(data) != TfRecordReader::Next::Record) return false;
  tensorboard::pb::Event event;
  return event.ParseFromString(data) && event.has_file_version() &&
         event.file_version().starts_with(tensorboard::kFileVersionPrefix);
}

Status readTensorboard(const fs::path& path, runs::ImportedRun& run, StepSink& sink) {
  auto files = eventFiles(path);
  if (!files) return std::move(files).error();
  EventRun events(run, sink);
  if (Status read = events.readAll(*files); !read) return read;
  events.finish();
  return {};
}

// ---------------------------------------------------------------------------
// Following a run.

struct TensorboardFollow::State {
  State(const runs::ImportedRun& start, const WarmUp& warmUp)
      : run(start), collector(warmUp), events(run, collector) {}
  State(const State& other)
      : run(other.run), collector(other.collector), events(other.events, run, collector) {}
  State& operator=(const State&) = delete;

  runs::ImportedRun run;
  StepCollector collector;
  EventRun events;  ///< after run and collector: it writes to them
};

TensorboardFollow::TensorboardFollow(fs::path target, runs::ImportedRun start, const WarmUp& warmUp)
    : target_(std::move(target)), start_(std::move(start)), warmUp_(warmUp) {}
TensorboardFollow::~TensorboardFollow() = default;
TensorboardFollow::TensorboardFollow(TensorboardFollow&&) noexcept = default;
TensorboardFollow& TensorboardFollow::operator=(TensorboardFollow&&) noexcept = default;

Expected<TensorboardFollow::Read> TensorboardFollow::readOn() {
  auto files = eventFiles(target_);
  if (!files) return std::move(files).error();
  Read answer;
  if (state_) answer.readAgain = state_->events.whyReadAgain(*files);
  if (state_ && !answer.readAgain) {
    auto restart = state_->events.readOn(*files, answer.fed);
    if (!restart) {
      state_.reset();
      return std::move(restart).error();
    }
    answer.readAgain = std::move(*restart);
    if (!answer.readAgain) return answer;
  }
  state_ = std::make_unique<State>(start_, warmUp_);
  if (Status read = state_->events.readAll(*files); !read) {
    state_.reset();
    return read.error();
  }
  answer.fed = true;
  return answer;
}

TensorboardFollow::Snapshot TensorboardFollow::snapshot() const {
  if (!state_) return {start_, StepCollector(warmUp_)};
  State copy(*state_);
  copy.events.finish();
  return {std::move(copy.run), std::move(copy.collector)};
}

}  // namespace tb::logs::detail
