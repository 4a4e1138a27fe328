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
#include <functional>
#include <fstream>
#include <new>
#include <system_error>

#include "format_parser.hpp"
#include "import_parts.hpp"
#include "line_session.hpp"
#include "line_reader.hpp"
#include "log_text.hpp"
#include "tb/common/text.hpp"

namespace tb::logs {
namespace {

namespace fs = std::filesystem;
using detail::FormatSpec;
using detail::isDocument;

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

using detail::ImportTarget;
using Target = ImportTarget;

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

// Every whole line goes to the session; a last line without its newline
// does not, and finish() is told.
Status readLines(const fs::path& file, detail::LineSession& session, runs::ImportedRun& run,
                 bool& endedMidLine, std::vector<std::string>& notes) {
  auto reader = detail::LineReader::open(file);
  if (!reader) return std::move(reader).error();
  bool fed = false;
  if (Status read = session.feedLines(*reader, fed); !read) return read;
  endedMidLine = reader->lastLineUnterminated();
  Status finished = session.finish(run, endedMidLine, notes);
  if (auto note = detail::longLinesNote(reader->skippedLongLines())) notes.push_back(*note);
  return finished;
}

void addPartialReason(runs::ImportedRun& run, const std::string& reason) {
  if (run.partialReason.find(reason) != std::string::npos) return;
  if (!run.partialReason.empty()) run.partialReason += "; ";
  run.partialReason += reason;
  run.partial = true;
}

// The format's own verdict on partial (finish() or readDocument, from what
// it knows of its format) stands as it is; the importer's two rules apply
// where it gave none, so one cause is not reported twice in two wordings.
void judgePartial(runs::ImportedRun& run, const detail::StepCollector& collector,
                  bool endedMidLine) {
  if (run.partial) return;
  // A log written every k steps ends up to k - 1 steps short of the planned
  // count on a finished run (Megatron logs when iteration % log_interval ==
  // 0), so only a shortfall of a whole interval or more means the run
  // stopped early.
  if (run.plannedSteps && run.lastStep && *run.lastStep < *run.plannedSteps) {
    const std::int64_t interval = std::max<std::int64_t>(1, collector.lastInterval().value_or(1));
    if (*run.plannedSteps - *run.lastStep >= interval)
      addPartialReason(run, "the last record is step " + std::to_string(*run.lastStep) + " of " +
                                std::to_string(*run.plannedSteps) + " planned");
  }
  if (endedMidLine)
    addPartialReason(run,
                     "the file ends mid-line (the run was still writing, or was killed); "
                     "its unfinished last line was left out");
}

}  // namespace

namespace detail {

Expected<ImportTarget> resolveTarget(const fs::path& path, const std::optional<Format>& forced) {
  return resolve(path, forced);
}

Status checkImportOptions(const ImportOptions& options) {
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

Expected<std::optional<LossPattern>> compileLossPattern(const ImportOptions& options) {
  if (!options.lossPattern) return std::optional<LossPattern>{};
  auto compiled = LossPattern::compile(*options.lossPattern);
  if (!compiled) return std::move(compiled).error();
  return std::optional<LossPattern>(std::move(*compiled));
}

// --skip-first N counts records; without it, the framework's own warm-up.
WarmUp warmUpFor(const FormatSpec& spec, const ImportOptions& options) {
  return options.skipFirst ? WarmUp{*options.skipFirst, std::nullopt}
                           : WarmUp{0, spec.skipStepsUpTo};
}

runs::ImportedRun startRun(const FormatSpec& spec, const fs::path& target) {
  runs::ImportedRun run;
  run.source = target.string();
  run.format = std::string(spec.name);
  run.framework = std::string(spec.framework);  // a reader may name it more precisely
  return run;
}

std::optional<std::string> longLinesNote(std::uint64_t skipped) {
  if (skipped == 0) return std::nullopt;
  return std::to_string(skipped) + (skipped == 1 ? " line" : " lines") + " longer than " +
         std::to_string(LineReader::kMaxLineBytes) +
         " bytes skipped (no line of a training-log format is that long)";
}

// Every parser turns bad input into a Parse error naming the file and the
// line or byte; this is the last guard of the rule that no exception leaves
// the importer, whatever a library below a parser throws.
Status guardedRead(const FormatSpec& spec, const fs::path& path,
                   const std::function<Status()>& read) {
  try {
    return read();
  } catch (const std::bad_alloc&) {
    return makeError(ErrorKind::Runtime, path.string() + ": out of memory while reading");
  } catch (const std::exception& e) {
    return makeError(ErrorKind::Parse,
                     path.string() + ": expected a readable " + std::string(spec.name) +
                         " file, found content the reader could not take (" + e.what() + ")");
  }
}

void noteUnusedLossPattern(const FormatSpec& spec, bool lossPatternGiven,
                           std::vector<std::string>& notes) {
  if (lossPatternGiven) {
    notes.push_back("--loss-pattern is for text logs; " + std::string(spec.name) +
                    " files are read by their structure, so it was not used");
  }
}

Status readDocumentTarget(const FormatSpec& spec, const fs::path& path, bool lossPatternGiven,
                          runs::ImportedRun& run, StepCollector& collector,
                          std::vector<std::string>& notes) {
  noteUnusedLossPattern(spec, lossPatternGiven, notes);
  return guardedRead(spec, path, [&] { return spec.readDocument(path, run, collector); });
}

Expected<ImportedLog> assembleImport(const FormatSpec& spec, const ImportOptions& options,
                                     StepCollector& collector, runs::ImportedRun run,
                                     bool endedMidLine, std::vector<std::string> notes) {
  ImportedLog out;
  collector.moveInto(run);
  if (run.records == 0 && !run.summary) {
    std::string message =
        run.source + ": expected " + std::string(spec.name) + " training records, found none";
    if (!notes.empty()) message += " (" + joinList(notes, "; ") + ")";
    return makeError(ErrorKind::Parse, message);
  }
  // What the file lacked is the file's, so it is taken before the options
  // fill in; the options then win over what the file says.
  FieldLists fields = fieldLists(collector, run);
  out.found = std::move(fields.found);
  out.missing = std::move(fields.missing);
  if (options.gpus) run.worldSize = options.gpus;
  if (options.sequenceLength) run.sequenceLength = options.sequenceLength;
  if (options.globalBatch) run.globalBatch = options.globalBatch;
  judgePartial(run, collector, endedMidLine);

  const MedianFactors factors{
      .gpus = run.worldSize, .sequenceLength = run.sequenceLength, .globalBatch = run.globalBatch};
  DerivedMedians derived = deriveMedians(collector, run.summary, factors);
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
  out.run = std::move(run);
  return out;
}

}  // namespace detail

Expected<Format> detectFormat(const std::filesystem::path& path) {
  auto target = resolve(path, std::nullopt);
  if (!target) return std::move(target).error();
  return target->format;
}

Expected<ImportedLog> importLog(const std::filesystem::path& path, const ImportOptions& options) {
  if (Status valid = detail::checkImportOptions(options); !valid) return valid.error();
  auto target = resolve(path, options.format);
  if (!target) return std::move(target).error();
  auto pattern = detail::compileLossPattern(options);
  if (!pattern) return std::move(pattern).error();
  const FormatSpec& spec = detail::formatSpec(target->format);
  const LossPattern* lossPattern = *pattern ? &**pattern : nullptr;

  runs::ImportedRun run = detail::startRun(spec, target->path);
  bool endedMidLine = false;
  std::vector<std::string> notes;
  if (isDocument(spec)) {
    detail::StepCollector collector(detail::warmUpFor(spec, options));
    const Status read = detail::readDocumentTarget(spec, target->path, lossPattern != nullptr, run,
                                                   collector, notes);
    if (!read) return read.error();
    return detail::assembleImport(spec, options, collector, std::move(run), false,
                                  std::move(notes));
  }
  detail::LineSession session(spec, target->path, lossPattern, detail::warmUpFor(spec, options));
  const Status read = detail::guardedRead(spec, target->path, [&] {
    return readLines(target->path, session, run, endedMidLine, notes);
  });
  if (!read) return read.error();
  return detail::assembleImport(spec, options, session.collector(), std::move(run), endedMidLine,
                                std::move(notes));
}

}  // namespace tb::logs
