// Detection and import. Two passes over a file, both streaming: the first
// finds the format (document formats by the file's first 64 KiB, line formats
// by reading cleaned lines until one claims a line, formats.cpp gives the
// order and the precedence), the second reads the whole file through that
// format into a StepCollector. Memory stays flat: the line reader's buffer,
// the collector's bounded curve and median inputs, and whatever the format
// keeps for one record.
#include "tb/logs/log_import.hpp"

#include <algorithm>
#include <exception>
#include <fstream>
#include <new>
#include <system_error>

#include "format_parser.hpp"
#include "line_reader.hpp"
#include "log_text.hpp"
#include "script_loss.hpp"
#include "step_collector.hpp"
#include "tb/common/text.hpp"

namespace tb::logs {
namespace {

namespace fs = std::filesystem;
using detail::FormatSpec;

constexpr std::size_t kHeadBytes = std::size_t{64} << 10;
// After a guest format's first line (formats.cpp: DeepSpeed, MLPerf),
// detection reads this much further for a host format's line. Megatron's
// first iteration line comes after log_interval steps of DeepSpeed lines, a
// NeMo step after MLPerf's init block: both well inside 8 MiB, which reads
// in a few tens of milliseconds.
constexpr std::uint64_t kGuestWindowBytes = std::uint64_t{8} << 20;
// Event files sit in subfolders (torchtitan: tb/<date>/rank_0/); deeper than
// this is not one run's folder.
constexpr int kEventSearchDepth = 4;

bool isGuest(Format format) { return format == Format::DeepSpeed || format == Format::Mlperf; }

bool isDocument(const FormatSpec& spec) { return spec.readDocument != nullptr; }

std::string knownNames() {
  std::vector<std::string> names;
  for (const Format format : allFormats()) names.emplace_back(formatName(format));
  return joinList(names);
}

Error unknownFormat(const fs::path& file, std::string_view found) {
  return makeError(ErrorKind::Parse, file.string() +
                                         ": no known training-log format: expected one of " +
                                         knownNames() + ", found " + std::string(found));
}

Expected<std::string> readHead(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return makeError(ErrorKind::Io, file.string() + ": cannot open for reading");
  std::string head(kHeadBytes, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  if (in.bad()) return makeError(ErrorKind::Io, file.string() + ": read failed");
  head.resize(static_cast<std::size_t>(in.gcount()));
  return head;
}

Expected<Format> detectFile(const fs::path& file) {
  auto head = readHead(file);
  if (!head) return std::move(head).error();
  if (head->empty()) return unknownFormat(file, "an empty file");
  for (const Format format : allFormats()) {
    const FormatSpec& spec = detail::formatSpec(format);
    if (spec.claimsHead != nullptr && spec.claimsHead(*head)) return format;
  }

  auto reader = detail::LineReader::open(file);
  if (!reader) return std::move(reader).error();
  std::string scratch;
  std::string_view line;
  std::optional<Format> guest;
  std::size_t guestRank = 0;
  std::uint64_t windowEnd = 0;
  while (reader->next(line)) {
    const std::string_view cleaned = detail::cleanLine(line, scratch);
    std::size_t rank = 0;
    for (const Format format : allFormats()) {
      const FormatSpec& spec = detail::formatSpec(format);
      ++rank;
      if (spec.claimsLine == nullptr || !spec.claimsLine(cleaned)) continue;
      if (!isGuest(format)) return format;
      if (!guest) windowEnd = reader->bytesRead() + kGuestWindowBytes;
      if (!guest || rank < guestRank) {
        guest = format;
        guestRank = rank;
      }
      break;
    }
    if (guest && reader->bytesRead() > windowEnd) break;
  }
  if (reader->error()) return *reader->error();
  if (guest) return *guest;
  const std::uint64_t lines = reader->lineNumber();
  return unknownFormat(file, std::to_string(lines) + (lines == 1 ? " line" : " lines") +
                                 " that none of them claims");
}

bool isHidden(const fs::path& file) {
  const std::string name = file.filename().string();
  return !name.empty() && name.front() == '.';
}

// The files readHfTrainer reads from a folder: output_dir's own, or (without
// save_state()) its checkpoints' checkpoint-N/trainer_state.json.
bool holdsTrainerFiles(const fs::path& dir) {
  std::error_code ec;
  for (const char* name : {"trainer_state.json", "train_results.json", "all_results.json"})
    if (fs::is_regular_file(dir / name, ec)) return true;
  for (fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::directory_iterator(); it.increment(ec)) {
    std::error_code entryError;
    if (it->path().filename().string().starts_with("checkpoint-") &&
        fs::is_regular_file(it->path() / "trainer_state.json", entryError))
      return true;
  }
  return false;
}

bool holdsEventFiles(const fs::path& dir) {
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it.depth() >= kEventSearchDepth) {
      it.disable_recursion_pending();
      continue;
    }
    std::error_code entryError;
    if (it->is_regular_file(entryError) &&
        it->path().filename().string().starts_with("events.out.tfevents."))
      return true;
  }
  return false;
}

std::vector<fs::path> filesIn(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::directory_iterator(); it.increment(ec))
    if (std::error_code entryError; it->is_regular_file(entryError) && !isHidden(it->path()))
      files.push_back(it->path());
  std::sort(files.begin(), files.end());
  return files;
}

struct Target {
  Format format;
  fs::path path;  ///< what the format reads: a file, or the folder itself
};

// A folder is a run's output folder: a Trainer's (its JSON files, read by
// the Trainer reader whatever else the folder holds, its TensorBoard
// callback's runs/ included: the Trainer's own summary is the run's record),
// one with event files anywhere below (torchtitan's tb/<date>/, NeMo's
// experiment folder), or one holding a single log (Lightning's version_N/
// with metrics.csv).
Expected<Target> resolveFolder(const fs::path& dir, const std::optional<Format>& forced) {
  if (forced && isDocument(detail::formatSpec(*forced))) return Target{*forced, dir};
  if (!forced) {
    if (holdsTrainerFiles(dir)) return Target{Format::HfTrainer, dir};
    if (holdsEventFiles(dir)) return Target{Format::Tensorboard, dir};
  }
  std::vector<Target> candidates;
  for (const fs::path& file : filesIn(dir)) {
    auto format = detectFile(file);
    if (format && (!forced || *format == *forced)) candidates.push_back({*format, file});
  }
  if (candidates.size() == 1) return candidates.front();
  if (candidates.empty()) {
    if (forced)
      return makeError(ErrorKind::BadInput, dir.string() + ": no file in this folder reads as " +
                                                std::string(formatName(*forced)) +
                                                ": name the file");
    return makeError(ErrorKind::Parse,
                     dir.string() +
                         ": no training log found: expected events.out.tfevents.* files, "
                         "trainer_state.json, train_results.json or all_results.json, or a file "
                         "in one of the formats " +
                         knownNames());
  }
  std::vector<std::string> listed;
  for (const Target& candidate : candidates)
    listed.push_back(candidate.path.filename().string() + " (" +
                     std::string(formatName(candidate.format)) + ")");
  return makeError(ErrorKind::BadInput, dir.string() + ": several training logs in this folder: " +
                                            joinList(listed) + "; name the one to import");
}

Expected<Target> resolve(const fs::path& path, const std::optional<Format>& forced) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status))
    return makeError(ErrorKind::NotFound, path.string() + ": no such file or folder");
  if (fs::is_directory(status)) return resolveFolder(path, forced);
  if (forced) return Target{*forced, path};
  auto format = detectFile(path);
  if (!format) return std::move(format).error();
  return Target{*format, path};
}

/// What every reader of one import shares.
struct ReadContext {
  detail::StepCollector& collector;
  const LossPattern* lossPattern = nullptr;  ///< --loss-pattern, compiled
};

using ScriptLoss = detail::ScriptLossReader;

// Every whole line goes to the format; a last line without its newline does
// not, and finish() is told. The sink given to feed() is the one collector
// of the import and lives on past finish(), so what a format held back (a
// record waiting for its memory line, a row for its continuation) it hands
// to that sink in finish().
Status readLines(const FormatSpec& spec, const fs::path& file, const ReadContext& context,
                 runs::ImportedRun& run, bool& endedMidLine, std::vector<std::string>& notes) {
  auto reader = detail::LineReader::open(file);
  if (!reader) return std::move(reader).error();
  const std::unique_ptr<detail::LineFormat> format = spec.makeLineFormat(file.string());
  ScriptLoss loss(spec, context.lossPattern, context.collector);
  std::string scratch;
  std::string_view line;
  endedMidLine = false;
  while (reader->next(line)) {
    // A last line without its newline was still being written (or the
    // writer was killed): any number in it may be cut ("tps: 55,3"), so it
    // is no record. finish() is told; every line before it is whole.
    if (reader->lastLineUnterminated()) break;
    const std::string_view cleaned = detail::cleanLine(line, scratch);
    if (Status fed = format->feed(cleaned, reader->lineNumber(), loss.sink()); !fed) return fed;
    loss.read(cleaned, *format);
  }
  if (reader->error()) return *reader->error();
  endedMidLine = reader->lastLineUnterminated();
  Status finished = format->finish(run, endedMidLine);
  loss.finish();
  notes = format->notes();
  const std::vector<std::string> lossNotes = loss.notes(file);
  notes.insert(notes.end(), lossNotes.begin(), lossNotes.end());
  if (const std::uint64_t skipped = reader->skippedLongLines(); skipped > 0) {
    notes.push_back(std::to_string(skipped) + (skipped == 1 ? " line" : " lines") +
                    " longer than " + std::to_string(detail::LineReader::kMaxLineBytes) +
                    " bytes skipped (no line of a training-log format is that long)");
  }
  return finished;
}

// Reads the target through its format. Every parser turns bad input into a
// Parse error naming the file and the line or byte; this is the last guard
// of the rule that no exception leaves importLog, whatever a library below
// a parser throws.
Status readTarget(const FormatSpec& spec, const fs::path& path, const ReadContext& context,
                  runs::ImportedRun& run, bool& endedMidLine, std::vector<std::string>& notes) {
  try {
    if (isDocument(spec)) {
      if (context.lossPattern) {
        notes.push_back("--loss-pattern is for text logs; " + std::string(spec.name) +
                        " files are read by their structure, so it was not used");
      }
      return spec.readDocument(path, run, context.collector);
    }
    return readLines(spec, path, context, run, endedMidLine, notes);
  } catch (const std::bad_alloc&) {
    return makeError(ErrorKind::Runtime, path.string() + ": out of memory while reading");
  } catch (const std::exception& e) {
    return makeError(ErrorKind::Parse,
                     path.string() + ": expected a readable " + std::string(spec.name) +
                         " file, found content the reader could not take (" + e.what() + ")");
  }
}

void addPartialReason(runs::ImportedRun& run, const std::string& reason) {
  if (run.partialReason.find(reason) != std::string::npos) return;
  if (!run.partialReason.empty()) run.partialReason += "; ";
  run.partialReason += reason;
  run.partial = true;
}

Status checkOptions(const ImportOptions& options) {
  if (options.gpus && *options.gpus < 1)
    return makeError(ErrorKind::BadInput,
                     "--gpus: expected at least 1, found " + std::to_string(*options.gpus));
  if (options.sequenceLength && *options.sequenceLength < 1)
    return makeError(ErrorKind::BadInput, "--seq: expected at least 1, found " +
                                              std::to_string(*options.sequenceLength));
  if (options.globalBatch && *options.globalBatch < 1)
    return makeError(ErrorKind::BadInput, "--global-batch: expected at least 1, found " +
                                              std::to_string(*options.globalBatch));
  if (options.skipFirst && *options.skipFirst < 0)
    return makeError(ErrorKind::BadInput, "--skip-first: expected 0 or more, found " +
                                              std::to_string(*options.skipFirst));
  return {};
}

}  // namespace

Expected<Format> detectFormat(const std::filesystem::path& path) {
  auto target = resolve(path, std::nullopt);
  if (!target) return std::move(target).error();
  return target->format;
}

Expected<ImportedLog> importLog(const std::filesystem::path& path, const ImportOptions& options) {
  if (Status valid = checkOptions(options); !valid) return valid.error();
  auto target = resolve(path, options.format);
  if (!target) return std::move(target).error();
  const FormatSpec& spec = detail::formatSpec(target->format);

  ImportedLog out;
  runs::ImportedRun& run = out.run;
  run.source = target->path.string();
  run.format = std::string(spec.name);
  run.framework = std::string(spec.framework);  // a reader may name it more precisely
  // --skip-first N counts records; without it, the framework's own warm-up.
  detail::StepCollector collector(options.skipFirst
                                      ? detail::WarmUp{*options.skipFirst, std::nullopt}
                                      : detail::WarmUp{0, spec.skipStepsUpTo});
  std::optional<LossPattern> lossPattern;
  if (options.lossPattern) {
    auto compiled = LossPattern::compile(*options.lossPattern);
    if (!compiled) return std::move(compiled).error();
    lossPattern = std::move(*compiled);
  }
  bool endedMidLine = false;
  std::vector<std::string> notes;
  const ReadContext context{collector, lossPattern ? &*lossPattern : nullptr};
  const Status read = readTarget(spec, target->path, context, run, endedMidLine, notes);
  if (!read) return read.error();
  collector.moveInto(run);
  if (run.records == 0 && !run.summary) {
    std::string message = target->path.string() + ": expected " + std::string(spec.name) +
                          " training records, found none";
    if (!notes.empty()) message += " (" + joinList(notes, "; ") + ")";
    return makeError(ErrorKind::Parse, message);
  }

  // What the file lacked is the file's, so it is taken before the options
  // fill in; the options then win over what the file says.
  detail::FieldLists fields = detail::fieldLists(collector, run);
  out.found = std::move(fields.found);
  out.missing = std::move(fields.missing);
  if (options.gpus) run.worldSize = options.gpus;
  if (options.sequenceLength) run.sequenceLength = options.sequenceLength;
  if (options.globalBatch) run.globalBatch = options.globalBatch;

  // The format's own verdict on partial (finish() or readDocument, from what
  // it knows of its format) stands as it is; the importer's two rules apply
  // where it gave none, so one cause is not reported twice in two wordings.
  const bool formatSaidPartial = run.partial;
  // A log written every k steps ends up to k - 1 steps short of the planned
  // count on a finished run (Megatron logs when iteration % log_interval ==
  // 0), so only a shortfall of a whole interval or more means the run
  // stopped early.
  if (!formatSaidPartial && run.plannedSteps && run.lastStep && *run.lastStep < *run.plannedSteps) {
    const std::int64_t interval = std::max<std::int64_t>(1, collector.lastInterval().value_or(1));
    if (*run.plannedSteps - *run.lastStep >= interval)
      addPartialReason(run, "the last record is step " + std::to_string(*run.lastStep) + " of " +
                                std::to_string(*run.plannedSteps) + " planned");
  }
  if (!formatSaidPartial && endedMidLine)
    addPartialReason(run,
                     "the file ends mid-line (the run was still writing, or was killed); "
                     "its unfinished last line was left out");

  detail::MedianFactors factors;
  factors.gpus = run.worldSize;
  factors.sequenceLength = run.sequenceLength;
  factors.globalBatch = run.globalBatch;
  detail::DerivedMedians derived = detail::deriveMedians(collector, run.summary, factors);
  out.medians = derived.medians;
  out.hints = std::move(derived.hints);
  out.excludedSeconds = derived.excludedSeconds;
  out.excludedKinds = std::move(derived.excludedKinds);
  out.hints.insert(out.hints.end(), notes.begin(), notes.end());
  if (!isDocument(spec) && !collector.seen().loss && !(run.summary && run.summary->loss))
    out.hints.push_back(
        "no loss in the file: --loss-pattern REGEX reads it from the training script's own lines "
        "(one group for the value, as in 'loss=([0-9.]+)')");
  out.skippedRecords = collector.skippedRecords();
  out.peakMemoryBytes = collector.peakMemoryBytes();
  return out;
}

}  // namespace tb::logs
