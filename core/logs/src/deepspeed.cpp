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
#include "format_parser.hpp"
#include "log_text.hpp"
#include "tb/common/text.hpp"

namespace tb::logs::detail {
namespace {

using console::afterBracketPrefixes;
using console::skipBlanks;
using console::takeDigits;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;  // the timer divides by 1024**3: "GB" is GiB
/// Breakdown-only records held back until the log shows whether it prints
/// numbered steps (then those are its records) or not (steps_per_print
/// unset, the default since v0.15.2: then the breakdowns are).
constexpr std::size_t kMaxHeldRecords = 1024;

std::optional<double> finite(std::optional<double> value) {
  return value && std::isfinite(*value) ? value : std::nullopt;
}

// ---------------------------------------------------------------- lines --

/// `epoch=0/micro_step=10/global_step=10, RunningAvgSamplesPerSec=…,
/// CurrSamplesPerSec=…, MemAllocated=…GB, MaxMemAllocated=…GB` (v0.8+),
/// `0/20, RunningAvgSamplesPerSec=…, CurrSamplesPerSec=…, …` (v0.7),
/// `0/10, SamplesPerSec=…, MemAllocated=…GB, MaxMemAllocated=…GB` (≤ v0.6).
struct TimerLine {
  std::int64_t step = 0;
  bool labelled = false;  ///< global_step= printed (v0.8+); before, the step printed is not said to be global
  std::optional<double> running;
  std::optional<double> current;
  std::optional<double> maxAllocatedGiB;
};

std::size_t timerAnchor(std::string_view line) {
  if (const auto at = line.find("RunningAvgSamplesPerSec="); at != std::string_view::npos) return at;
  const auto at = line.find(", SamplesPerSec=");
  if (at != std::string_view::npos && line.find("MemAllocated=", at) != std::string_view::npos) {
    return at + 2;
  }
  return std::string_view::npos;
}

/// The line's values, or an error for a timer line that cannot be read.
std::optional<Error> readTimer(std::string_view line, std::size_t anchor, TimerLine& timer,
                               std::string_view origin, std::uint64_t lineNumber) {
  const auto bad = [&](std::string_view expected) {
    return expectedError(origin, lineNumber, expected, trim(line));
  };
  std::string_view head = line.substr(0, anchor);
  if (const auto at = head.rfind("global_step="); at != std::string_view::npos) {
    std::string_view digits = head.substr(at + std::string_view("global_step=").size());
    const auto step = takeDigits(digits);
    if (!step) return bad("'global_step=N' with a whole number");
    timer.step = *step;
    timer.labelled = true;
  } else {
    // `E/S, ` just before the anchor.
    head = trim(head);
    if (head.ends_with(",")) head.remove_suffix(1);
    const auto start = head.find_last_of(" ]");
    std::string_view token = start == std::string_view::npos ? head : head.substr(start + 1);
    const auto slash = token.find('/');
    if (slash == std::string_view::npos) return bad("'epoch/step, ' before the samples per second");
    token.remove_prefix(slash + 1);
    const auto step = takeDigits(token);
    if (!step || !token.empty()) return bad("'epoch/step, ' with whole numbers");
    timer.step = *step;
  }
  for (const auto& item : split(line.substr(anchor), ',')) {
    const std::string_view field = trim(item);
    const auto eq = field.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view key = field.substr(0, eq);
    std::string_view value = field.substr(eq + 1);
    if (value.ends_with("GB")) value.remove_suffix(2);
    const bool known = key == "RunningAvgSamplesPerSec" || key == "SamplesPerSec" ||
                       key == "CurrSamplesPerSec" || key == "MaxMemAllocated";
    if (!known) continue;
    const auto number = parseLogNumber(value);
    if (!number) return bad("a number for '" + std::string(key) + "'");
    if (key == "CurrSamplesPerSec") timer.current = finite(number);
    else if (key == "MaxMemAllocated") timer.maxAllocatedGiB = finite(number);
    else timer.running = finite(number);  // -inf before the first timed step
  }
  return std::nullopt;
}

/// `[Rank 0] step=10, skipped=10, lr=[0.0001], mom=[(0.9, 0.999)]`
/// (engine._report_progress; one lr per parameter group, group 0 is taken).
struct ProgressLine {
  std::int64_t step = 0;
  std::int64_t skipped = 0;
  std::optional<double> learningRate;
};

std::size_t progressAnchor(std::string_view line) {
  const auto at = line.find(", skipped=");
  if (at == std::string_view::npos) return std::string_view::npos;
  const auto step = line.rfind("step=", at);
  if (step == std::string_view::npos || (step > 0 && line[step - 1] != ' ' && line[step - 1] != ']')) {
    return std::string_view::npos;  // global_step=…, or someone else's words
  }
  return step;
}

/// The first number of a Python list repr: `[0.0001, 0.0002]`; entries
/// such as `np.float64(0.0001)` or `tensor(1.0e-04, device='cuda:0')` are
/// unwrapped.
std::optional<double> firstListNumber(std::string_view text) {
  text = trim(text);
  if (!text.starts_with("[")) return std::nullopt;
  text.remove_prefix(1);
  if (const auto open = text.find('('); open != std::string_view::npos && open < text.find_first_of(",]")) {
    text.remove_prefix(open + 1);
  }
  return parseLogNumber(text.substr(0, text.find_first_of(",])")));
}

std::optional<Error> readProgress(std::string_view line, std::size_t anchor, ProgressLine& progress,
                                  std::string_view origin, std::uint64_t lineNumber) {
  std::string_view text = line.substr(anchor + std::string_view("step=").size());
  const auto step = takeDigits(text);
  if (!step || !text.starts_with(", skipped=")) {
    return expectedError(origin, lineNumber, "'step=N, skipped=N' with whole numbers", trim(line));
  }
  text.remove_prefix(std::string_view(", skipped=").size());
  const auto skipped = takeDigits(text);
  if (!skipped) return expectedError(origin, lineNumber, "'skipped=N' with a whole number", trim(line));
  progress.step = *step;
  progress.skipped = *skipped;
  if (const auto lr = text.find("lr="); lr != std::string_view::npos) {
    const std::string_view list = text.substr(lr + 3, text.find(", mom=") - (lr + 3));
    progress.learningRate = finite(firstListNumber(list));
    if (!progress.learningRate && trim(list) != "[]") {
      return expectedError(origin, lineNumber, "'lr=[…]' with numbers", list);
    }
  }
  return std::nullopt;
}

/// `time (ms) | fwd: … | bwd: … | bwd_inner: … | bwd_allreduce: … | step: …`
/// (SynchronizedWallClockTimer.log; `forward`, `backward`, … before v0.10.1;
/// `_microstep` names for the micro-step line).
enum class BreakdownKind : std::uint8_t { NotDeepSpeed, Micro, Global, Other };
struct Breakdown {
  BreakdownKind kind = BreakdownKind::NotDeepSpeed;
  double milliseconds = 0.0;  ///< fwd + bwd + step of a global line
};

bool isMicroTimer(std::string_view name) { return name.ends_with("_microstep"); }
bool isForward(std::string_view name) { return name == "fwd" || name == "forward"; }
bool isBackward(std::string_view name) { return name == "bwd" || name == "backward"; }
/// Names only DeepSpeed's engine timers have: Megatron-LM's own old timers
/// also print `time (ms) | forward: … | backward: …`.
bool isDeepSpeedOnlyTimer(std::string_view name) {
  return isMicroTimer(name) || name == "fwd" || name == "bwd" || name == "bwd_inner" ||
         name == "bwd_allreduce" || name == "backward_inner" || name == "backward_allreduce";
}

std::size_t breakdownAnchor(std::string_view line) {
  const auto at = line.find("time (ms) |");
  if (at == std::string_view::npos || (at > 0 && line[at - 1] != ' ' && line[at - 1] != ']')) {
    return std::string_view::npos;
  }
  return at;
}

std::optional<Error> readBreakdown(std::string_view line, std::size_t anchor, Breakdown& breakdown,
                                   std::string_view origin, std::uint64_t lineNumber) {
  bool deepSpeedNames = false;
  bool micro = false;
  std::optional<double> forward;
  std::optional<double> backward;
  double step = 0.0;
  std::optional<std::string> badKey;
  std::string_view badValue;
  forEachField(line.substr(anchor + std::string_view("time (ms)").size()), "|",
               [&](const LogField& field) {
                 deepSpeedNames = deepSpeedNames || isDeepSpeedOnlyTimer(field.key);
                 micro = micro || isMicroTimer(field.key);
                 const bool used = isForward(field.key) || isBackward(field.key) || field.key == "step";
                 if (!used || badKey) return;
                 const auto value = parseLogNumber(field.value);
                 if (!value || !std::isfinite(*value)) {
                   badKey = std::string(field.key);
                   badValue = field.value;
                   return;
                 }
                 if (isForward(field.key)) forward = *value;
                 else if (isBackward(field.key)) backward = *value;
                 else step = *value;
               });
  if (!deepSpeedNames) return std::nullopt;
  if (badKey) return expectedError(origin, lineNumber, "milliseconds for '" + *badKey + "'", badValue);
  if (micro) breakdown.kind = BreakdownKind::Micro;
  else if (forward && backward) breakdown.kind = BreakdownKind::Global;
  else breakdown.kind = BreakdownKind::Other;  // ZeRO's optimizer_* timers, pipe_* timers
  if (breakdown.kind == BreakdownKind::Global) breakdown.milliseconds = *forward + *backward + step;
  return std::nullopt;
}

/// `steps: 10 loss: 7.1234 [name: v ]iter time (s): 1.234 samples/sec: 207.456`
/// (PipelineEngine.train_batch, printed every steps_per_print steps; the time
/// is the window's average).
struct PipelineLine {
  std::int64_t step = 0;
  std::optional<double> loss;
  std::optional<double> iterSeconds;
  std::optional<double> samplesPerSecond;
};

std::size_t pipelineAnchor(std::string_view line) {
  const auto at = line.find("steps: ");
  if (at == std::string_view::npos || (at > 0 && line[at - 1] != ' ' && line[at - 1] != ']')) {
    return std::string_view::npos;
  }
  if (line.find(" loss: ", at) == std::string_view::npos ||
      line.find("iter time (s): ", at) == std::string_view::npos ||
      line.find("samples/sec: ", at) == std::string_view::npos) {
    return std::string_view::npos;
  }
  return at;
}

std::optional<double> numberAfter(std::string_view text, std::string_view label) {
  const auto at = text.find(label);
  if (at == std::string_view::npos) return std::nullopt;
  const std::string_view rest = skipBlanks(text.substr(at + label.size()));
  return parseLogNumber(rest.substr(0, rest.find(' ')));
}

std::optional<Error> readPipeline(std::string_view line, std::size_t anchor, PipelineLine& pipe,
                                  std::string_view origin, std::uint64_t lineNumber) {
  std::string_view text = line.substr(anchor + std::string_view("steps: ").size());
  const auto step = takeDigits(text);
  pipe.loss = numberAfter(text, "loss: ");
  pipe.iterSeconds = numberAfter(text, "iter time (s): ");
  pipe.samplesPerSecond = numberAfter(text, "samples/sec: ");
  if (!step || !pipe.loss || !pipe.iterSeconds || !pipe.samplesPerSecond) {
    return expectedError(origin, lineNumber,
                      "'steps: N loss: X iter time (s): T samples/sec: S' with numbers", trim(line));
  }
  pipe.step = *step;
  pipe.loss = finite(pipe.loss);
  pipe.iterSeconds = finite(pipe.iterSeconds);
  pipe.samplesPerSecond = finite(pipe.samplesPerSecond);
  return std::nullopt;
}

/// A profiler value with its unit, `102.0 TFLOPS` / `184.73 ms`, counted in
/// `unitSize` base units (1e12 for TFLOPS, 1 for seconds); nothing for a
/// unit other than `base` with a metric prefix.
std::optional<double> scaledValue(std::string_view text, std::string_view base, double unitSize) {
  text = trim(text);
  const auto space = text.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const auto number = parseLogNumber(text.substr(0, space));
  std::string_view unit = trim(text.substr(space));
  // `TFLOPS`, and `TFLOPs` in some versions' labels: the base in any case,
  // the prefix as printed (m is milli, M mega).
  if (!number || unit.size() < base.size() ||
      toLower(unit.substr(unit.size() - base.size())) != toLower(base)) {
    return std::nullopt;
  }
  unit.remove_suffix(base.size());
  // duration_to_string / flops_to_string prefixes.
  double factor = 0.0;
  if (unit.empty()) factor = 1.0;
  else if (unit == "P") factor = 1e15;
  else if (unit == "T") factor = 1e12;
  else if (unit == "G") factor = 1e9;
  else if (unit == "M") factor = 1e6;
  else if (unit == "K") factor = 1e3;
  else if (unit == "m") factor = 1e-3;
  else if (unit == "u") factor = 1e-6;
  else if (unit == "n") factor = 1e-9;
  else return std::nullopt;
  return *number * factor / unitSize;
}

// -------------------------------------------------------------- records --

/// A record being gathered from the lines of one engine.step().
struct Part {
  runs::ImportedStep step;
  bool printed = false;      ///< a line printed its step number (not counted from breakdowns)
  bool hasProgress = false;
  bool hasTimer = false;
  bool hasBreakdown = false;
  std::optional<double> currentSamples;  ///< CurrSamplesPerSec: train_batch_size / this step's time
  std::optional<double> runningSamples;  ///< RunningAvgSamplesPerSec / SamplesPerSec
  std::optional<double> pipelineSeconds;
  std::optional<double> pipelineSamples;
  std::optional<double> profileSeconds;
  std::optional<double> profileSamples;
  std::optional<double> profileIterTflops;     ///< FLOPS per GPU over the iteration latency
  std::optional<double> profileFwdBwdTflops;   ///< fwd+bwd FLOPS per GPU
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

  Status feed(std::string_view line, std::uint64_t lineNumber, StepSink& sink) override {
    sink_ = &sink;
    if (auto error = read(line, lineNumber)) return std::move(*error);
    return {};
  }

  // The importer does not feed an unfinished last line and marks such a
  // file partial itself.
  Status finish(runs::ImportedRun& run, bool /*endedMidLine*/) override {
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
    std::optional<Part> open;                  ///< the record of the engine.step() being printed
    Mode mode = Mode::Unknown;
    std::int64_t lastStep = 0;                 ///< of the last record, to count breakdown-only steps
    bool overflow = false;                     ///< an overflow line since the last record opened
    std::int64_t progressStep = 0;             ///< of the last progress line
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
        (trim(line).starts_with("-----") && trim(line).find_first_not_of('-') == std::string_view::npos)) {
      state_.inProfile = false;
      return std::nullopt;
    }
    if (const auto at = line.find("Profile Summary at step "); at != std::string_view::npos) {
      std::string_view text = line.substr(at + std::string_view("Profile Summary at step ").size());
      const auto step = takeDigits(text);
      if (!step) return expectedError(origin_, lineNumber, "'Profile Summary at step N:'", trim(line));
      if (state_.open && state_.open->step.step != *step) close();
      if (!state_.open) open(*step);
      state_.open->printed = true;
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
    const auto ends = [&](std::string_view suffix) { return std::string_view(label).ends_with(suffix); };
    if (label.find("fwd+bwd flops per gpu =") != std::string::npos) {
      const auto tflops = scaledValue(value, "FLOPS", 1e12);
      if (!tflops) return fail("a FLOPS value such as '102.0 TFLOPS'");
      if (*tflops > 0.0) part.profileFwdBwdTflops = tflops;  // negative: the profiler's timers were off
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
      if (!state_.worldSize && *ranks > 0 && *ranks < (1LL << 24)) state_.worldSize = static_cast<int>(*ranks);
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
      const std::string_view rest = line.substr(at + std::string_view("DeepSpeed info: version=").size());
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
        if (const auto batch = parseUnsigned(value); batch && *batch > 0) state_.trainBatch = *batch;
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
  std::vector<Record> held_;  ///< committed in Mode::Unknown
};

}  // namespace

bool deepSpeedClaimsLine(std::string_view line) {
  if (progressAnchor(line) != std::string_view::npos) return line.find(", lr=") != std::string_view::npos;
  if (const auto at = timerAnchor(line); at != std::string_view::npos) {
    TimerLine timer;
    return !readTimer(line, at, timer, {}, 0);
  }
  if (const auto at = breakdownAnchor(line); at != std::string_view::npos) {
    Breakdown breakdown;
    bool deepSpeedNames = false;
    forEachField(line.substr(at + std::string_view("time (ms)").size()), "|",
                 [&](const LogField& field) { deepSpeedNames = deepSpeedNames || isDeepSpeedOnlyTimer(field.key); });
    return deepSpeedNames && !readBreakdown(line, at, breakdown, {}, 0);
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
