// NeMo 2's console line (nemo/lightning/pytorch/callbacks/progress_printer.py
// ProgressPrinter) and DLLogger's `DLLL {json}` lines (nemo/utils/loggers/
// dllogger.py through dllogger.JSONStreamBackend): both are format "nemo".
// The metric names are in nemo_metrics.hpp; docs/LOG_FORMATS.md, "NeMo /
// Lightning", says what each means.
//
//   Training epoch 0, iteration 1/249 | lr: 3.922e-06 | global_batch_size: 8 | global_step: 1 | …
//   DLLL {"timestamp": "…", "datetime": "…", "elapsedtime": "…", "type": "LOG", "step": 16, "data":
//   {…}}
//
// ProgressPrinter averages every metric but global_step over its
// log_interval, so one console line is one logging window, like Megatron's.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "format_parser.hpp"
#include "log_text.hpp"
#include "nemo_metrics.hpp"
#include "python_json.hpp"
#include "tb/common/text.hpp"

namespace tb::logs::detail {
namespace {

/// `Training epoch E, iteration i/n`, and where the ` | key: value` fields begin.
struct ConsolePrefix {
  std::int64_t epoch = 0;
  std::int64_t iteration = 0;
  std::int64_t total = 0;
  std::string_view fields;
};

/// Reads the digits at the start of `text` and removes them.
std::optional<std::int64_t> takeCount(std::string_view& text) {
  std::size_t digits = 0;
  while (digits < text.size() && isDigit(text[digits])) ++digits;
  if (digits == 0 || digits > 15) return std::nullopt;
  const auto value = parseUnsigned(text.substr(0, digits));
  text.remove_prefix(digits);
  if (!value) return std::nullopt;
  return static_cast<std::int64_t>(*value);
}

bool takeText(std::string_view& text, std::string_view expected) {
  if (!text.starts_with(expected)) return false;
  text.remove_prefix(expected.size());
  return true;
}

std::optional<ConsolePrefix> parseConsolePrefix(std::string_view line) {
  ConsolePrefix prefix;
  if (!takeText(line, "Training epoch ")) return std::nullopt;
  const auto epoch = takeCount(line);
  if (!epoch || !takeText(line, ", iteration ")) return std::nullopt;
  const auto iteration = takeCount(line);
  if (!iteration || !takeText(line, "/")) return std::nullopt;
  const auto total = takeCount(line);
  if (!total || (!line.empty() && !line.starts_with(" | "))) return std::nullopt;
  prefix.epoch = *epoch;
  prefix.iteration = *iteration;
  prefix.total = *total;
  prefix.fields = line;
  return prefix;
}

constexpr std::string_view kDllPrefix = "DLLL ";

class NemoFormat final : public LineFormat {
 public:
  explicit NemoFormat(std::string_view origin) : origin_(origin) {}

  [[nodiscard]] std::unique_ptr<LineFormat> clone() const override {
    return std::make_unique<NemoFormat>(*this);
  }

  // Every line fed is whole (the importer never feeds a cut last line), so
  // a line's record is committed as soon as it is read.
  Status feed(std::string_view line, std::uint64_t lineNumber, StepSink& sink) override {
    sink_ = &sink;
    if (const auto prefix = parseConsolePrefix(line)) {
      if (source_ == Source::Dllogger) return {};
      source_ = Source::Console;
      Held held;
      held.line = lineNumber;
      readConsole(*prefix, held);
      return commit(std::move(held));
    }
    if (line.starts_with(kDllPrefix)) {
      if (source_ == Source::Console) return {};
      Held held;
      held.line = lineNumber;
      readDllogger(line.substr(kDllPrefix.size()), held);
      if (held.record) source_ = Source::Dllogger;
      return commit(std::move(held));
    }
    // Another logger's line: NeMo's [NeMo I …] lines, the validation loop's.
    if (line.find("Validation: iteration") != std::string_view::npos) ++validations_;
    return {};
  }

  [[nodiscard]] std::vector<std::string> notes() const override {
    if (auto note = validationNote(validations_, "Validation: iteration",
                                   "NeMo's train_step_timing times each training step alone, so "
                                   "validation is not in the step times"))
      return {*note};
    return {};
  }

  Status finish(runs::ImportedRun& run, bool endedMidLine, StepSink& sink) override {
    sink_ = &sink;  // a copy finishing hands its held records to its own sink
    // The importer never feeds a cut last line (its last value may be cut).
    if (endedMidLine) markPartial(run, "the last line is cut off");
    records_.finish(run, sink_);
    if (source_ == Source::Console) finishConsole(run);
    return {};
  }

 private:
  enum class Source : std::uint8_t { None, Console, Dllogger };

  /// What one line gave, for commit().
  struct Held {
    std::uint64_t line = 0;
    std::optional<Error> error;
    bool record = false;  ///< a training record (not metadata, not a PARAMETER line)
    NemoMetrics metrics;
    std::int64_t step = 0;
    std::optional<ConsolePrefix> console;
  };

  void readConsole(const ConsolePrefix& prefix, Held& held) const {
    held.console = prefix;
    held.console->fields = {};  // points into this line, which does not outlive feed()
    forEachField(prefix.fields, " | ", [&](const LogField& field) {
      if (held.error) return;
      // ProgressPrinter averages `step` over the window like any metric; the
      // step comes from global_step (not averaged) or the iteration.
      if (field.key == "step") return;
      const NemoKeyInfo info = nemoKey(field.key);
      if (info.key == NemoKey::Unknown) return;
      const auto value = parseLogNumber(field.value);
      if (!value) {
        held.error = lineError(origin_, held.line,
                               "expected a number for \"" + std::string(field.key) + "\", found '" +
                                   std::string(field.value) + "'");
        return;
      }
      if (!setNemoMetric(info, *value, held.metrics)) {
        held.error = lineError(origin_, held.line,
                               "expected a whole step number for \"" + std::string(field.key) +
                                   "\", found '" + std::string(field.value) + "'");
      }
    });
    if (held.error) return;
    held.record =
        held.metrics.hasTrainingValue();  // its step: consoleStep(), once the form is known
  }

  void readDllogger(std::string_view text, Held& held) const {
    JsonTextError problem;
    const auto document = parsePythonJson(text, problem);
    if (!document) {
      held.error = lineError(origin_, held.line,
                             "expected a JSON object after 'DLLL ', found '" +
                                 std::string(text.substr(0, 60)) + "' (byte " +
                                 std::to_string(problem.byte + kDllPrefix.size()) + ": " +
                                 problem.reason + ")");
      return;
    }
    if (!document->is_object()) {
      held.error = lineError(origin_, held.line,
                             "expected a JSON object after 'DLLL ', found " + jsonFound(*document));
      return;
    }
    // METADATA lines describe a metric; LOG lines with step "PARAMETER" hold
    // hyper-parameters, with step [] metrics logged without a step.
    const auto type = document->find("type");
    if (type == document->end() || *type != "LOG") return;
    const auto stepIt = document->find("step");
    if (stepIt == document->end()) return;
    // "PARAMETER" and [] are no step; a number must be a step count.
    if (!stepIt->is_number()) return;
    const auto step = jsonCount(*stepIt);
    if (!step) {
      held.error = lineError(
          origin_, held.line,
          "expected a whole, non-negative step number for \"step\", found " + jsonFound(*stepIt));
      return;
    }
    const auto data = document->find("data");
    if (data == document->end() || !data->is_object()) {
      held.error =
          lineError(origin_, held.line,
                    "expected an object for \"data\", found " +
                        (data == document->end() ? std::string("nothing") : jsonFound(*data)));
      return;
    }
    for (const auto& item : data->items()) {
      const NemoKeyInfo info = nemoKey(item.key());
      if (info.key == NemoKey::Unknown) continue;
      std::optional<double> value;
      if (!jsonNumber(item.value(), value)) {
        held.error = lineError(
            origin_, held.line,
            "expected a number for \"" + item.key() + "\", found " + jsonFound(item.value()));
        return;
      }
      if (!value) continue;
      if (!setNemoMetric(info, *value, held.metrics)) {
        held.error = lineError(origin_, held.line,
                               "expected a whole step number for \"" + item.key() + "\", found " +
                                   jsonFound(item.value()));
        return;
      }
    }
    held.step = *step;  // the Lightning logger's step, as metrics.csv has it
    held.record = held.metrics.hasTrainingValue();
  }

  Status commit(Held held) {
    if (held.error) return *held.error;
    if (!held.record) return {};
    if (held.console) {
      observeConsole(*held.console, held.metrics);
      held.step = consoleStep(*held.console, held.metrics);
    }
    // LearningRateMonitor and the module log apart: records of one step merge.
    records_.add(held.metrics, held.step, sink_);
    return {};
  }

  void observeConsole(const ConsolePrefix& prefix, const NemoMetrics& metrics) {
    if (prefix.epoch != 0) laterEpoch_ = true;
    previousIteration_ = lastIteration_;
    lastIteration_ = prefix.iteration;
    total_ = prefix.total;
    if (metrics.globalStep && !iterationOffset_)
      iterationOffset_ = prefix.iteration - *metrics.globalStep;
  }

  // The console record's step is n, the optimizer steps done, as Megatron's
  // iteration, torchtitan's step and the Trainer's global_step count them
  // (so curves line up, and the last record of a finished run is the planned
  // count): global_step + 1, since global_step is logged before the step.
  // Without global_step, the iteration in the form an earlier line showed;
  // with no such line the form is unknown and the iteration is taken as
  // printed.
  [[nodiscard]] std::int64_t consoleStep(const ConsolePrefix& prefix,
                                         const NemoMetrics& metrics) const {
    if (metrics.globalStep) return *metrics.globalStep + 1;
    if (iterationOffset_ == 0) return prefix.iteration + 1;
    return prefix.iteration;
  }

  // ProgressPrinter prints `iteration {n-1}/{total-1}` in earlier NeMo 2
  // releases and `iteration {n}/{total}` in later ones, n being the optimizer
  // steps done and total trainer.max_steps; global_step (logged before the
  // step) tells which: it equals n-1. Only then is the planned step count
  // known. With several epochs n counts within the epoch, so nothing is said.
  void finishConsole(runs::ImportedRun& run) const {
    if (!lastIteration_ || laterEpoch_) return;
    std::int64_t done = *lastIteration_;
    std::int64_t planned = total_;
    bool exact = false;
    if (iterationOffset_ == 0) {
      done += 1;
      planned += 1;
      exact = true;
    } else if (iterationOffset_ == 1) {
      exact = true;
    }
    if (exact && planned > 0) run.plannedSteps = planned;
    // The line comes every log_interval steps: if one more was due before the
    // end, the run stopped early (without knowing the form, allow one step).
    const std::int64_t interval = previousIteration_ && *lastIteration_ > *previousIteration_
                                      ? *lastIteration_ - *previousIteration_
                                      : 1;
    if (done + interval <= planned - (exact ? 0 : 1) && !run.partial) {
      markPartial(run, "the last training line is at iteration " + std::to_string(*lastIteration_) +
                           " of " + std::to_string(total_) + ": the run stopped before its end");
    }
  }

  static void markPartial(runs::ImportedRun& run, const std::string& reason) {
    run.partial = true;
    run.partialReason = reason;
  }

  std::string origin_;
  StepSink* sink_ = nullptr;  ///< feed()'s, then finish()'s for the record still merging
  std::int64_t validations_ = 0;
  // A stream with both forms keeps the first one seen: the console line's
  // window averages and DLLogger's per-step values must not mix on one curve.
  Source source_ = Source::None;
  NemoRecords records_;
  std::optional<std::int64_t> lastIteration_;
  std::optional<std::int64_t> previousIteration_;
  std::int64_t total_ = 0;
  std::optional<std::int64_t> iterationOffset_;
  bool laterEpoch_ = false;
};

}  // namespace

bool nemoClaimsLine(std::string_view line) {
  if (const auto prefix = parseConsolePrefix(line)) return !prefix->fields.empty();
  return line.starts_with("DLLL {");
}

std::unique_ptr<LineFormat> makeNemoFormat(std::string_view origin) {
  return std::make_unique<NemoFormat>(origin);
}

}  // namespace tb::logs::detail
