// Hugging Face Trainer output: trainer_state.json (its log_history of
// training, eval and final-summary entries) and the flat train_results.json /
// all_results.json, or a folder holding them (output_dir, checkpoint-N/).
// What each key means, its unit and scope: docs/LOG_FORMATS.md, "Hugging Face
// Trainer".
//
// The file is parsed with nlohmann's SAX interface: each log_history entry is
// built, read and dropped as soon as it closes, so a history of a million
// entries is never held whole.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "excluded_time.hpp"
#include "format_parser.hpp"
#include "log_text.hpp"
#include "python_json.hpp"
#include "tb/common/text.hpp"

namespace tb::logs::detail {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

/// What one Trainer file holds.
struct TrainerFile {
  bool hasLogHistory = false;
  std::optional<std::int64_t> globalStep;
  std::optional<std::int64_t> maxSteps;
  std::optional<runs::ImportedSummary>
      summary;                       ///< final log_history entry, or a results file's train_* keys
  std::optional<double> tokensSeen;  ///< num_input_tokens_seen beside that summary (all ranks)
  std::int64_t records = 0;          ///< training entries read into the sink
  /// Non-training runtimes after the last summary entry (all of them, in a
  /// checkpoint's state that has no summary yet).
  std::vector<runs::ExcludedTime> unclaimedExcluded;
};

/// Builds JSON values as nlohmann's DOM parser does, except that the elements
/// of the top-level "log_history" array go to `onEntry` one by one instead of
/// into the array, and nesting deeper than kMaxJsonDepth is refused (its byte
/// offset taken from `offset`, the stream's position) before it is built.
class TrainerSax final : public nlohmann::json_sax<Json> {
 public:
  using EntryHandler = std::function<Status(const Json& entry, std::size_t index)>;

  TrainerSax(EntryHandler onEntry, std::function<std::uint64_t()> offset)
      : onEntry_(std::move(onEntry)), offset_(std::move(offset)) {}

  bool null() override { return add(Json(nullptr)); }
  bool boolean(bool value) override { return add(Json(value)); }
  bool number_integer(number_integer_t value) override { return add(Json(value)); }
  bool number_unsigned(number_unsigned_t value) override { return add(Json(value)); }
  bool number_float(number_float_t value, const string_t& /*text*/) override {
    return add(Json(value));
  }
  bool string(string_t& value) override { return add(Json(std::move(value))); }
  bool binary(binary_t& /*value*/) override { return true; }  // JSON text has no binary values

  bool start_object(std::size_t /*elements*/) override {
    if (tooDeep()) return false;
    frames_.push_back(Frame{Json::object()});
    return true;
  }
  bool key(string_t& name) override {
    frames_.back().key = std::move(name);
    return true;
  }
  bool end_object() override { return close(); }

  bool start_array(std::size_t /*elements*/) override {
    if (tooDeep()) return false;
    Frame frame{Json::array()};
    frame.history = frames_.size() == 1 && frames_.front().value.is_object() &&
                    frames_.front().key == "log_history";
    frames_.push_back(std::move(frame));
    return true;
  }
  bool end_array() override { return close(); }

  bool parse_error(std::size_t position, const std::string& /*lastToken*/,
                   const nlohmann::detail::exception& error) override {
    // `position` counts the bytes read, the offending one included.
    syntaxOffset_ = position > 0 ? position - 1 : 0;
    syntaxReason_ = jsonErrorReason(error.what());
    return false;
  }

  [[nodiscard]] Json& root() { return root_; }
  [[nodiscard]] const std::optional<Error>& entryError() const { return entryError_; }
  /// The byte of the bracket that went deeper than kMaxJsonDepth, if one did.
  [[nodiscard]] const std::optional<std::uint64_t>& tooDeepOffset() const { return tooDeepOffset_; }
  [[nodiscard]] std::uint64_t syntaxOffset() const { return syntaxOffset_; }
  [[nodiscard]] const std::string& syntaxReason() const { return syntaxReason_; }

 private:
  struct Frame {
    explicit Frame(Json container) : value(std::move(container)) {}
    Json value;
    std::string key;       ///< an object's key awaiting its value
    bool history = false;  ///< this is the top-level log_history array
    std::size_t entries = 0;
  };

  bool add(Json value) {
    if (frames_.empty()) {
      root_ = std::move(value);
      return true;
    }
    Frame& top = frames_.back();
    if (top.value.is_object()) {
      top.value[top.key] = std::move(value);
    } else if (top.history) {
      Status status = onEntry_(value, top.entries++);
      if (!status) {
        entryError_ = status.error();
        return false;
      }
    } else {
      top.value.push_back(std::move(value));
    }
    return true;
  }

  bool close() {
    Json value = std::move(frames_.back().value);
    frames_.pop_back();
    return add(std::move(value));
  }

  bool tooDeep() {
    if (frames_.size() < kMaxJsonDepth) return false;
    // The parser has just read the bracket: it is the byte before the stream's position.
    const std::uint64_t next = offset_();
    tooDeepOffset_ = next > 0 ? next - 1 : 0;
    return true;
  }

  EntryHandler onEntry_;
  std::function<std::uint64_t()> offset_;
  std::optional<std::uint64_t> tooDeepOffset_;
  std::vector<Frame> frames_;
  Json root_;
  std::optional<Error> entryError_;
  std::uint64_t syntaxOffset_ = 0;
  std::string syntaxReason_;
};

/// The 1-based line of a byte offset, counted again from the file (only on
/// the way to an error message).
std::uint64_t lineAtOffset(const fs::path& file, std::uint64_t offset) {
  std::ifstream in(file, std::ios::binary);
  std::uint64_t line = 1;
  std::uint64_t position = 0;
  char buffer[64 * 1024];
  while (position < offset && in) {
    const auto wanted =
        static_cast<std::streamsize>(std::min<std::uint64_t>(sizeof buffer, offset - position));
    in.read(buffer, wanted);
    const auto got = static_cast<std::size_t>(in.gcount());
    for (std::size_t i = 0; i < got; ++i) {
      if (buffer[i] == '\n') ++line;
    }
    position += got;
    if (got == 0) break;
  }
  return line;
}

Error parseError(const fs::path& file, std::uint64_t offset, const std::string& what) {
  return makeError(ErrorKind::Parse,
                   file.string() + ":" + std::to_string(lineAtOffset(file, offset)) + ": " + what);
}

/// A numeric key of `object` into `out`: absent and null leave it empty; a
/// value of another type is an error naming `where`.
Status readNumber(const Json& object, std::string_view key, std::optional<double>& out,
                  const std::function<Error(std::string)>& fail) {
  const auto it = object.find(key);
  if (it == object.end()) return {};
  if (!jsonNumber(*it, out)) {
    return fail("expected a number for \"" + std::string(key) + "\", found " + jsonFound(*it));
  }
  return {};
}

bool hasKeyWithPrefix(const Json& object, std::string_view prefix) {
  for (const auto& item : object.items()) {
    if (std::string_view(item.key()).starts_with(prefix)) return true;
  }
  return false;
}

/// The final summary's keys (speed_metrics("train", …) plus total_flos and
/// train_loss), wherever they are: the last log_history entry, or the top
/// level of train_results.json / all_results.json. Sets `found` when any is.
Status readSummary(const Json& object, runs::ImportedSummary& summary, bool& found,
                   std::optional<double>& tokensSeen,
                   const std::function<Error(std::string)>& fail) {
  std::optional<double> tokensPerSecond;
  for (const auto& [key, target] : {std::pair<std::string_view, std::optional<double>*>{
                                        "train_runtime", &summary.runtimeSeconds},
                                    {"train_samples_per_second", &summary.samplesPerSecond},
                                    {"train_steps_per_second", &summary.stepsPerSecond},
                                    {"train_tokens_per_second", &tokensPerSecond},
                                    {"total_flos", &summary.totalFlos},
                                    {"train_loss", &summary.loss},
                                    {"num_input_tokens_seen", &tokensSeen}}) {
    if (Status status = readNumber(object, key, *target, fail); !status) return status;
    if (*target && key != "num_input_tokens_seen") found = true;
  }
  // include_tokens_per_second counts one device's dataloader (TrainingArguments:
  // "the number of tokens per second per device").
  if (tokensPerSecond)
    summary.tokensPerSecond = runs::ScopedRate{*tokensPerSecond, runs::RateScope::PerGpu};
  return {};
}

/// The final summary: speed_metrics("train", …) always sets train_runtime.
bool isSummaryEntry(const Json& entry) { return entry.contains("train_runtime"); }

/// A training log (every logging_steps): loss, learning_rate, grad_norm. Eval
/// and predict entries carry their own prefixed keys instead.
bool isTrainingEntry(const Json& entry) {
  if (!entry.contains("loss") && !entry.contains("learning_rate") && !entry.contains("grad_norm")) {
    return false;
  }
  return !hasKeyWithPrefix(entry, "eval_") && !hasKeyWithPrefix(entry, "predict_") &&
         !hasKeyWithPrefix(entry, "test_");
}

/// An entry's `<split>_runtime` keys (evaluation, prediction), step or no
/// step: user code that appends a prediction entry leaves the step out, yet
/// its time was spent inside train().
Status tallyNonTraining(const Json& entry, ExcludedTimeTally& tally,
                        const std::function<Error(std::string)>& fail) {
  for (const auto& item : entry.items()) {
    const auto kind = nonTrainingRuntimeKind(item.key());
    if (!kind) continue;
    std::optional<double> seconds;
    if (Status status = readNumber(entry, item.key(), seconds, fail); !status) return status;
    if (seconds) tally.add(*kind, *seconds);
  }
  return {};
}

class NullSink final : public StepSink {
 public:
  void add(const runs::ImportedStep& /*step*/) override {}
};

/// Reads one Trainer JSON file, its training entries into `sink`.
Status readTrainerFile(const fs::path& file, TrainerFile& out, StepSink& sink) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return makeError(ErrorKind::Io, file.string() + ": cannot open the file");
  PythonJsonStreamBuf buffer(in);
  std::istream text(&buffer);

  const auto failAtCurrent = [&](const std::string& where) {
    return [&file, &buffer, where](std::string what) {
      return parseError(file, buffer.offset(), where + what);
    };
  };

  ExcludedTimeTally excluded;
  TrainerSax sax(
      [&](const Json& entry, std::size_t index) -> Status {
        const auto fail = failAtCurrent("log_history[" + std::to_string(index) + "]: ");
        if (!entry.is_object())
          return {};  // user code may append anything; Trainer.log() appends dicts
        if (isSummaryEntry(entry)) {
          runs::ImportedSummary summary;
          bool found = false;
          if (Status status = readSummary(entry, summary, found, out.tokensSeen, fail); !status)
            return status;
          summary.excluded = excluded.takeForSummary();
          if (found) out.summary = summary;
          return {};
        }
        if (Status status = tallyNonTraining(entry, excluded, fail); !status) return status;
        if (!isTrainingEntry(entry)) return {};
        const auto stepIt = entry.find("step");
        // Trainer.log() always adds "step"; an entry without one was appended by
        // user code and has no place on the curve.
        if (stepIt == entry.end()) return {};
        const auto step = jsonCount(*stepIt);
        if (!step) {
          return fail("expected a whole, non-negative step number for \"step\", found " +
                      jsonFound(*stepIt));
        }
        runs::ImportedStep record;
        record.step = *step;
        for (const auto& [key, target] :
             {std::pair<std::string_view, std::optional<double>*>{"loss", &record.loss},
              {"learning_rate", &record.learningRate},
              {"grad_norm", &record.gradNorm}}) {
          if (Status status = readNumber(entry, key, *target, fail); !status) return status;
        }
        sink.add(record);
        ++out.records;
        return {};
      },
      [&buffer] { return buffer.offset(); });

  const bool parsed = Json::sax_parse(text, &sax);
  out.unclaimedExcluded = excluded.takeForSummary();
  if (in.bad()) return makeError(ErrorKind::Io, file.string() + ": reading the file failed");
  if (!parsed) {
    if (sax.entryError()) return *sax.entryError();
    if (const auto& deep = sax.tooDeepOffset()) {
      return parseError(file, *deep,
                        "JSON nested deeper than " + std::to_string(kMaxJsonDepth) +
                            " levels at byte " + std::to_string(*deep));
    }
    return parseError(
        file, sax.syntaxOffset(),
        "invalid JSON at byte " + std::to_string(sax.syntaxOffset()) + ": " + sax.syntaxReason());
  }

  const Json& root = sax.root();
  if (!root.is_object()) {
    return parseError(file, 0,
                      "expected a JSON object (trainer_state.json or train_results.json), found " +
                          jsonFound(root));
  }
  const auto fail = [&file](std::string what) { return parseError(file, 0, std::move(what)); };
  const auto history = root.find("log_history");
  out.hasLogHistory = history != root.end();
  if (out.hasLogHistory && !history->is_array()) {
    return fail("expected an array for \"log_history\", found " + jsonFound(*history));
  }
  for (const auto& [key, target] :
       {std::pair<std::string_view, std::optional<std::int64_t>*>{"global_step", &out.globalStep},
        {"max_steps", &out.maxSteps}}) {
    const auto it = root.find(key);
    if (it == root.end() || it->is_null()) continue;
    *target = jsonCount(*it);
    if (!*target) {
      return fail("expected a whole, non-negative number for \"" + std::string(key) + "\", found " +
                  jsonFound(*it));
    }
  }
  if (out.hasLogHistory) return {};

  // A flat results file: the summary is the top level itself.
  const bool trainerKeys = hasKeyWithPrefix(root, "train_") || hasKeyWithPrefix(root, "eval_") ||
                           hasKeyWithPrefix(root, "predict_") || hasKeyWithPrefix(root, "test_") ||
                           root.contains("epoch") || root.contains("total_flos");
  if (!trainerKeys) {
    return fail(
        "expected a Trainer file: trainer_state.json with \"log_history\", or "
        "train_results.json / all_results.json with train_* keys, found neither");
  }
  runs::ImportedSummary summary;
  bool found = false;
  if (Status status = readSummary(root, summary, found, out.tokensSeen, fail); !status)
    return status;
  if (found) out.summary = summary;
  return {};
}

/// Lays the fields `from` has over the empty ones of `into`.
void fillSummary(runs::ImportedSummary& into, const runs::ImportedSummary& from) {
  const auto fill = [](auto& target, const auto& source) {
    if (!target) target = source;
  };
  fill(into.runtimeSeconds, from.runtimeSeconds);
  fill(into.samplesPerSecond, from.samplesPerSecond);
  fill(into.stepsPerSecond, from.stepsPerSecond);
  fill(into.tokensPerSecond, from.tokensPerSecond);
  fill(into.totalFlos, from.totalFlos);
  fill(into.loss, from.loss);
}

bool isFile(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(path, error);
}

/// checkpoint-N/trainer_state.json with the largest N: its log_history holds
/// every entry up to that step (the history is saved whole each time).
std::optional<fs::path> latestCheckpointState(const fs::path& folder) {
  std::optional<fs::path> best;
  long long bestStep = -1;
  std::error_code error;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    constexpr std::string_view kPrefix = "checkpoint-";
    if (!std::string_view(name).starts_with(kPrefix)) continue;
    const auto step = parseUnsigned(std::string_view(name).substr(kPrefix.size()));
    const fs::path state = it->path() / "trainer_state.json";
    if (step && *step > bestStep && isFile(state)) {
      bestStep = *step;
      best = state;
    }
  }
  return best;
}

}  // namespace

bool hfTrainerClaimsHead(std::string_view head) {
  head = withoutBom(head);
  const auto start = head.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos || head[start] != '{') return false;
  // Keys only the Trainer writes: the state's log_history, the summary's
  // speed metrics, an eval split's results (no_trainer scripts' all_results.json).
  for (const std::string_view key :
       {"\"log_history\"", "\"train_runtime\"", "\"train_samples_per_second\"", "\"train_loss\"",
        "\"eval_loss\"", "\"eval_runtime\""}) {
    if (head.find(key) != std::string_view::npos) return true;
  }
  return false;
}

Status readHfTrainer(const std::filesystem::path& path, runs::ImportedRun& run, StepSink& sink) {
  std::optional<fs::path> stateFile;
  std::optional<fs::path> resultsFile;
  std::error_code error;
  if (fs::is_directory(path, error)) {
    // output_dir has trainer_state.json when the script called save_state();
    // otherwise its newest checkpoint's is the best there is.
    if (isFile(path / "trainer_state.json")) {
      stateFile = path / "trainer_state.json";
    } else {
      stateFile = latestCheckpointState(path);
    }
    for (const char* name : {"train_results.json", "all_results.json"}) {
      if (isFile(path / name)) {
        resultsFile = path / name;
        break;
      }
    }
    if (!stateFile && !resultsFile) {
      return makeError(ErrorKind::NotFound,
                       path.string() +
                           ": expected trainer_state.json, train_results.json, all_results.json or "
                           "checkpoint-N/trainer_state.json in the folder, found none");
    }
  } else {
    stateFile = path;  // whichever kind it is, its content says
  }

  TrainerFile state;
  if (stateFile) {
    if (Status status = readTrainerFile(*stateFile, state, sink); !status) return status;
  }
  TrainerFile results;
  if (resultsFile) {
    NullSink ignored;  // a results file has no steps
    if (Status status = readTrainerFile(*resultsFile, results, ignored); !status) return status;
  }

  std::optional<runs::ImportedSummary> summary = state.summary;
  std::optional<double> tokensSeen = state.summary ? state.tokensSeen : std::nullopt;
  if (results.summary) {
    if (!summary) {
      // The state (a checkpoint's) ends before the summary: its evaluations
      // ran inside the train() call whose summary the results file holds.
      summary = results.summary;
      summary->excluded = state.unclaimedExcluded;
      tokensSeen = results.tokensSeen;
    } else {
      fillSummary(*summary, *results.summary);
      if (!tokensSeen) tokensSeen = results.tokensSeen;
    }
  }
  // value_or rather than *: GCC 12 warns that an engaged optional's value
  // "may be used uninitialized" through the copies above.
  const double seen = tokensSeen.value_or(0.0);
  const double runtime = summary && summary->runtimeSeconds ? *summary->runtimeSeconds : 0.0;
  if (summary && !summary->tokensPerSecond && seen > 0 && runtime > 0) {
    // num_input_tokens_seen is gathered over all ranks: the job's tokens. The
    // runtime spans the whole train() call, evaluation and saving included.
    summary->tokensPerSecond = runs::ScopedRate{seen / runtime, runs::RateScope::Job};
  }
  // Neither a training entry nor any training summary key (an eval split's
  // results, the unrelated all_results.json of accelerate's no_trainer
  // scripts, a state logged before its first logging step): nothing of a
  // training run to import, and the refusal says what is missing.
  if (state.records == 0 && !summary) {
    const std::string what = state.hasLogHistory
                                 ? "no train_runtime: no training throughput in this file (and no "
                                   "training entry in log_history)"
                                 : "no train_runtime: no training throughput in this file (nor "
                                   "train_samples_per_second, "
                                   "train_steps_per_second, train_loss or total_flos: an eval or "
                                   "predict split's results?)";
    if (!fs::is_directory(path, error)) return parseError(path, 0, what);
    std::string files;
    for (const auto* file : {&stateFile, &resultsFile}) {
      if (!*file) continue;
      if (!files.empty()) files += " and ";
      files += (*file)->filename().string();
    }
    return makeError(ErrorKind::Parse, path.string() + ": " + files + ": " + what);
  }
  run.summary = summary;

  if (state.maxSteps && *state.maxSteps > 0) run.plannedSteps = state.maxSteps;
  // train_batch_size in the state is the per-device batch, not the global one
  // (that also needs gradient accumulation and world size, which no Trainer
  // file records), so run.globalBatch stays empty.
  if (state.hasLogHistory && !summary) {
    const bool reachedEnd =
        state.globalStep && state.maxSteps && *state.globalStep >= *state.maxSteps;
    if (!reachedEnd) {
      run.partial = true;
      run.partialReason =
          state.globalStep && state.maxSteps
              ? "global_step " + std::to_string(*state.globalStep) + " of max_steps " +
                    std::to_string(*state.maxSteps) +
                    " and no final summary entry: a checkpoint's state, or a run that stopped"
              : "log_history has no final summary entry: the run did not finish";
    }
  }
  return {};
}

}  // namespace tb::logs::detail
