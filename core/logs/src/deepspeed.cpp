// The DeepSpeed engine's console log: the ThroughputTimer line (three forms
// over the versions), the `step=… skipped=… lr=…` progress line, the
// `time (ms) | …` wall-clock breakdowns, the pipeline engine's `steps: …
// samples/sec: …` line, the flops profiler's summary block and the fp16
// overflow lines, gathered into one record per optimizer step. Facts:
// docs/LOG_FORMATS.md, "DeepSpeed".
//
// One engine.step() prints, in this order: an overflow line (if the update
// is skipped), the progress line and the ThroughputTimer line (every
// steps_per_print steps), the profiler block (at its step), the micro-step
// breakdown, and the global breakdown at the accumulation boundary (every
// step, with wall_clock_breakdown). So a record is opened by the first of
// these and closed by the global breakdown or by a line of another step.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "console_text.hpp"
#include "deepspeed_lines.hpp"
#include "format_parser.hpp"
#include "log_text.hpp"
#include "tb/common/text.hpp"
#include "tb/common/units.hpp"

namespace tb::logs::detail {
namespace {

using namespace deepspeed;  // the line readers

using console::takeDigits;

/// Breakdown-only records held back until the log shows whether it prints
/// numbered steps (then those are its records) or not (steps_per_print
/// unset, the default since v0.15.2: then the breakdowns are).
constexpr std::size_t kMaxHeldRecords = 1024;

// -------------------------------------------------------------- records --

/// A record being gathered from the lines of one engine.step().
struct Part {
  runs::ImportedStep step;
  bool printed = false;  ///< a line printed its step number (not counted from breakdowns)
  bool hasProgress = false;
  bool hasTimer = false;
  bool hasBreakdown = false;
  std::optional<double> currentSamples;  ///< CurrSamplesPerSec: train_batch_size / this step's time
  std::optional<double> runningSamples;  ///< RunningAvgSamplesPerSec / SamplesPerSec
  std::optional<double> pipelineSeconds;
  std::optional<double> pipelineSamples;
  std::optional<double> profileSeconds;
  std::optional<double> profileSamples;
  std::optional<double> profileIterTflops;    ///< FLOPS per GPU over the iteration latency
  std::optional<double> profileFwdBwdTflops;  ///< fwd+bwd FLOPS per GPU
  std::optional<double> breakdownSeconds;
};

/// A closed record; `printed`: a line of the log printed its step.
struct Record {
  runs::ImportedStep step;
  bool printed = false;
};

enum class Mode : std::uint8_t {
  Unknown,        ///< only breakdowns so far: held back
  Numbered,       ///< the log prints its steps: those are the records
  BreakdownOnly,  ///< no numbered steps within kMaxHeldRecords breakdowns
};

class DeepSpeedFormat final : public LineFormat {
 public:
  explicit DeepSpeedFormat(std::string_view origin) : origin_(origin) {}

  [[nodiscard]] std::unique_ptr<LineFormat> clone() const override {
    return std::make_unique<DeepSpeedFormat>(*this);
  }

  Status feed(std::string_view line, std::uint64_t lineNumber, StepSink& sink) override {
    sink_ = &sink;
    if (auto error = read(line, lineNumber)) return std::move(*error);
    return {};
  }

  [[nodiscard]] std::optional<std::int64_t> lastPrintedStep() const override {
    return printedStep_;
  }

  // The importer does not feed an unfinished last line and marks such a
  // file partial itself.
  Status finish(runs::ImportedRun& run, bool /*endedMidLine*/, StepSink& sink) override {
    sink_ = &sink;  // a copy finishing hands its held records to its own sink
    close();
    // A log that never printed a numbered step: its breakdowns are its records.
    for (const auto& held : held_) emit(held.step);
    held_.clear();

    if (!state_.version.empty()) run.frameworkVersion = state_.version;
    if (state_.worldSize) run.worldSize = *state_.worldSize;
    if (state_.trainBatch) run.globalBatch = state_.trainBatch;
    if (state_.sawMemory) run.memoryKind = "max_allocated";
    return {};
  }

 private:
  struct State {
    std::optional<Part> open;  ///< the record of the engine.step() being printed
    Mode mode = Mode::Unknown;
    std::int64_t lastStep = 0;      ///< of the last record, to count breakdown-only steps
    bool overflow = false;          ///< an overflow line since the last record opened
    std::int64_t progressStep = 0;  ///< of the last progress line
    std::int64_t progressSkipped = 0;
    bool inProfile = false;
    std::optional<std::int64_t> profileModelParallel;
    std::optional<std::int64_t> trainBatch;
    std::optional<int> worldSize;
    std::string version;
    bool sawMemory = false;
  };

  std::optional<Error> read(std::string_view line, std::uint64_t lineNumber) {
    if (const auto at = progressAnchor(line); at != std::string_view::npos) {
      ProgressLine progress;
      if (auto error = readProgress(line, at, progress, origin_, lineNumber)) return error;
      addProgress(progress);
      return std::nullopt;
    }
    if (const auto at = timerAnchor(line); at != std::string_view::npos) {
      TimerLine timer;
      if (auto error = readTimer(line, at, timer, origin_, lineNumber)) return error;
      addTimer(timer);
      return std::nullopt;
    }
    if (const auto at = breakdownAnchor(line); at != std::string_view::npos) {
      Breakdown breakdown;
      if (auto error = readBreakdown(line, at, breakdown, origin_, lineNumber)) return error;
      if (breakdown.kind == BreakdownKind::Global) addGlobalBreakdown(breakdown.milliseconds);
      return std::nullopt;
    }
    if (const auto at = pipelineAnchor(line); at != std::string_view::npos) {
      PipelineLine pipe;
      if (auto error = readPipeline(line, at, pipe, origin_, lineNumber)) return error;
      addPipeline(pipe);
      return std::nullopt;
    }
    if (line.find("OVERFLOW!") != std::string_view::npos &&
        line.find("Skipping step") != std::string_view::npos) {
      state_.overflow = true;
      return std::nullopt;
    }
    if (line.find("DeepSpeed Flops Profiler") != std::string_view::npos) {
      state_.inProfile = true;
      state_.profileModelParallel.reset();
      return std::nullopt;
    }
    if (state_.inProfile) return readProfileLine(line, lineNumber);
    readMetadata(line);
    return std::nullopt;
  }

  // A numbered line opens the record of its step or joins it.
  Part& openNumbered(std::int64_t step) {
    if (state_.open && !(state_.open->printed && state_.open->step.step == step)) close();
    if (!state_.open) open(step);
    state_.open->printed = true;
    printedStep_ = step;
    return *state_.open;
  }

  void open(std::int64_t step) {
    Part part;
    part.step.step = step;
    // An overflow line comes before the other lines of its engine.step().
    part.step.skippedUpdate = state_.overflow;
    state_.overflow = false;
    state_.open = std::move(part);
  }

  void close() {
    if (!state_.open) return;
    Record record = finalize(std::move(*state_.open));
    state_.open.reset();
    commit(std::move(record));
  }

  void becomeNumbered() {
    if (state_.mode == Mode::Numbered) return;
    if (state_.mode == Mode::Unknown) {
      // The breakdowns so far were steps the log does not print; a held
      // record whose step was printed (a profile) is kept.
      for (const auto& held : held_) {
        if (held.printed) emit(held.step);
      }
      held_.clear();
    }
    state_.mode = Mode::Numbered;
  }

  void addProgress(const ProgressLine& progress) {
    becomeNumbered();
    Part& part = openNumbered(progress.step);
    part.hasProgress = true;
    if (progress.learningRate) part.step.learningRate = progress.learningRate;
    // `skipped` counts skipped updates since the start; DeepSpeed does not
    // say which steps of a window they were, so a printed step is marked
    // only when every step since the previous progress line was skipped
    // (with steps_per_print 1: exactly this step).
    const std::int64_t newlySkipped = progress.skipped - state_.progressSkipped;
    const std::int64_t window = progress.step - state_.progressStep;
    part.step.skippedUpdate = newlySkipped > 0 && newlySkipped >= window;
    state_.progressStep = progress.step;
    state_.progressSkipped = progress.skipped;
  }

  void addTimer(const TimerLine& timer) {
    becomeNumbered();
    // Before v0.8 the printed step is not labelled global (micro steps in
    // the oldest form): the line joins the progress line just before it,
    // from the same engine.step(), which carries the global step.
    const bool joinsProgress = !timer.labelled && state_.open && state_.open->hasProgress &&
                               !state_.open->hasTimer && !state_.open->hasBreakdown;
    Part& part = joinsProgress ? *state_.open : openNumbered(timer.step);
    part.hasTimer = true;
    part.currentSamples = timer.current;
    part.runningSamples = timer.running;
    if (timer.maxAllocatedGiB) {
      // The timer divides by 1024**3: its "GB" is GiB.
      part.step.memoryBytes = *timer.maxAllocatedGiB * kGiB;
      state_.sawMemory = true;
    }
  }

  void addPipeline(const PipelineLine& pipe) {
    becomeNumbered();
    Part& part = openNumbered(pipe.step);
    part.step.loss = pipe.loss;
    part.pipelineSeconds = pipe.iterSeconds;
    part.pipelineSamples = pipe.samplesPerSecond;
  }

  /// The global breakdown is printed once per optimizer step, last of its
  /// engine.step(): it closes the open record, or is a step of its own.
  void addGlobalBreakdown(double milliseconds) {
    state_.inProfile = false;
    if (!state_.open || state_.open->hasBreakdown) {
      close();
      open(state_.lastStep + 1);
    }
    state_.open->hasBreakdown = true;
    state_.open->breakdownSeconds = milliseconds / 1000.0;
    close();
  }

  /// `Profile Summary at step N:` then `label:   value unit` lines
  /// (print_model_profile, with print(): no logger prefix).
  std::optional<Error> readProfileLine(std::string_view line, std::uint64_t lineNumber) {
    if (line.find("Aggregated Profile per GPU") != std::string_view::npos ||
        (trim(line).starts_with("-----") &&
         trim(line).find_first_not_of('-') == std::string_view::npos)) {
      state_.inProfile = false;
      return std::nullopt;
    }
    if (const auto at = line.find("Profile Summary at step "); at != std::string_view::npos) {
      std::string_view text = line.substr(at + std::string_view("Profile Summary at step ").size());
      const auto step = takeDigits(text);
      if (!step)
        return expectedError(origin_, lineNumber, "'Profile Summary at step N:'", trim(line));
      if (state_.open && state_.open->step.step != *step) close();
      if (!state_.open) open(*step);
      state_.open->printed = true;
      printedStep_ = *step;
      return std::nullopt;
    }
    const auto colon = line.rfind(':');
    if (colon == std::string_view::npos || !state_.open) return std::nullopt;
    const std::string label = toLower(trim(line.substr(0, colon)));
    const std::string_view value = trim(line.substr(colon + 1));
    const auto fail = [&](std::string_view expected) {
      return expectedError(origin_, lineNumber, expected, value);
    };
    Part& part = *state_.open;
    const auto ends = [&](std::string_view suffix) {
      return std::string_view(label).ends_with(suffix);
    };
    if (label.find("fwd+bwd flops per gpu =") != std::string::npos) {
      const auto tflops = scaledValue(value, "FLOPS", 1e12);
      if (!tflops) return fail("a FLOPS value such as '102.0 TFLOPS'");
      if (*tflops > 0.0)
        part.profileFwdBwdTflops = tflops;  // negative: the profiler's timers were off
    } else if (label.find("flops per gpu =") != std::string::npos && ends("/ iter latency")) {
      const auto tflops = scaledValue(value, "FLOPS", 1e12);
      if (!tflops) return fail("a FLOPS value such as '81.9 TFLOPS'");
      if (*tflops > 0.0) part.profileIterTflops = tflops;
    } else if (ends("iter latency")) {
      const auto seconds = scaledValue(value, "s", 1.0);
      if (!seconds) return fail("a duration such as '184.73 ms'");
      if (*seconds > 0.0) part.profileSeconds = seconds;
    } else if (ends("samples/second")) {
      const auto samples = parseLogNumber(value);
      if (!samples) return fail("a number of samples per second");
      if (*samples > 0.0) part.profileSamples = samples;
    } else if (ends("world size")) {
      const auto ranks = parseUnsigned(value);
      if (!ranks) return fail("a whole number of ranks");
      if (!state_.worldSize && *ranks > 0 && *ranks < (1LL << 24))
        state_.worldSize = static_cast<int>(*ranks);
    } else if (ends("model parallel size")) {
      const auto size = parseUnsigned(value);
      if (!size) return fail("a whole number");
      state_.profileModelParallel = *size;
    }
    return std::nullopt;
  }

  /// What the start of the log says about the run.
  void readMetadata(std::string_view line) {
    // deepspeed.initialize: `DeepSpeed info: version=0.10.0, git-hash=…, git-branch=…`.
    if (const auto at = line.find("DeepSpeed info: version="); at != std::string_view::npos) {
      const std::string_view rest =
          line.substr(at + std::string_view("DeepSpeed info: version=").size());
      state_.version = std::string(trim(rest.substr(0, rest.find(','))));
      return;
    }
    // The deepspeed launcher (launcher/launch.py): `dist_world_size=8`, every rank of the job.
    if (const auto at = line.find("dist_world_size="); at != std::string_view::npos) {
      std::string_view rest = line.substr(at + std::string_view("dist_world_size=").size());
      if (const auto ranks = takeDigits(rest); ranks && *ranks > 0 && *ranks < (1 << 24)) {
        state_.worldSize = static_cast<int>(*ranks);
      }
      return;
    }
    // The engine's config print: `  train_batch_size ............. 16`, the
    // global batch (micro batch × accumulation × data-parallel ranks).
    if (const auto at = line.find("train_batch_size ."); at != std::string_view::npos) {
      std::string_view name;
      std::string_view value;
      if (console::readDotted(line.substr(at), name, value) && name == "train_batch_size") {
        if (const auto batch = parseUnsigned(value); batch && *batch > 0)
          state_.trainBatch = *batch;
      }
    }
  }

  /// The record's values, each from the best line that gave it.
  Record finalize(Part part) const {
    runs::ImportedStep step = part.step;
    // CurrSamplesPerSec is train_batch_size over this step's time, so the
    // time is the batch over it; the pipeline's and the profiler's come
    // next; the breakdown's fwd + bwd + step leaves out data loading.
    if (part.currentSamples && *part.currentSamples > 0.0 && state_.trainBatch) {
      step.stepTimeSeconds = static_cast<double>(*state_.trainBatch) / *part.currentSamples;
    } else if (part.pipelineSeconds) {
      step.stepTimeSeconds = part.pipelineSeconds;
    } else if (part.profileSeconds) {
      step.stepTimeSeconds = part.profileSeconds;
    } else if (part.breakdownSeconds) {
      step.stepTimeSeconds = part.breakdownSeconds;
    }
    // Samples/s are the whole job's (train_batch_size) in every form. The
    // profiler multiplies the micro batch by every rank, model-parallel ones
    // too: only without model parallelism is its figure the job's.
    std::optional<double> samples = part.currentSamples;
    if (!samples) samples = part.pipelineSamples;
    if (!samples) samples = part.runningSamples;
    if (!samples && (!state_.profileModelParallel || *state_.profileModelParallel == 1)) {
      samples = part.profileSamples;
    }
    if (samples) step.samplesPerSecond = runs::ScopedRate{*samples, runs::RateScope::Job};
    step.tflopsPerGpu = part.profileIterTflops ? part.profileIterTflops : part.profileFwdBwdTflops;
    return Record{std::move(step), part.printed};
  }

  /// A closed record goes out, is held, or is left out, as the mode says.
  void commit(Record record) {
    state_.lastStep = record.step.step;
    switch (state_.mode) {
      case Mode::Numbered:
        if (record.printed) emit(record.step);  // a breakdown of a step the log does not print
        break;
      case Mode::BreakdownOnly: emit(record.step); break;
      case Mode::Unknown:
        held_.push_back(std::move(record));
        if (held_.size() >= kMaxHeldRecords) {
          state_.mode = Mode::BreakdownOnly;
          for (const auto& held : held_) emit(held.step);
          held_.clear();
        }
        break;
    }
  }

  void emit(const runs::ImportedStep& step) {
    if (sink_ != nullptr) sink_->add(step);
  }

  std::string origin_;
  StepSink* sink_ = nullptr;  ///< the importer's, for the records finish() still holds
  State state_;
  std::vector<Record> held_;                 ///< committed in Mode::Unknown
  std::optional<std::int64_t> printedStep_;  ///< of the last numbered line
};

}  // namespace

bool deepSpeedClaimsLine(std::string_view line) {
  if (progressAnchor(line) != std::string_view::npos)
    return line.find(", lr=") != std::string_view::npos;
  if (const auto at = timerAnchor(line); at != std::string_view::npos) {
    TimerLine timer;
    return !readTimer(line, at, timer, {}, 0);
  }
  if (const auto at = breakdownAnchor(line); at != std::string_view::npos) {
    // readBreakdown leaves the kind NotDeepSpeed for a line without a timer
    // name only DeepSpeed's engine has (Megatron-LM's own `time (ms) |`).
    Breakdown breakdown;
    return !readBreakdown(line, at, breakdown, {}, 0) &&
           breakdown.kind != BreakdownKind::NotDeepSpeed;
  }
  if (const auto at = pipelineAnchor(line); at != std::string_view::npos) {
    PipelineLine pipe;
    return !readPipeline(line, at, pipe, {}, 0);
  }
  return line.find("DeepSpeed Flops Profiler") != std::string_view::npos;
}

std::unique_ptr<LineFormat> makeDeepSpeedFormat(std::string_view origin) {
  return std::make_unique<DeepSpeedFormat>(origin);
}

}  // namespace tb::logs::detail
