// Each line form's fields, as docs/LOG_FORMATS.md ("DeepSpeed") lists them.
#include "deepspeed_lines.hpp"

#include <cmath>

#include "console_text.hpp"
#include "log_text.hpp"
#include "tb/common/text.hpp"

namespace tb::logs::detail::deepspeed {

using console::takeDigits;

std::optional<double> finite(std::optional<double> value) {
  return value && std::isfinite(*value) ? value : std::nullopt;
}

std::size_t timerAnchor(std::string_view line) {
  if (const auto at = line.find("RunningAvgSamplesPerSec="); at != std::string_view::npos)
    return at;
  const auto at = line.find(", SamplesPerSec=");
  if (at != std::string_view::npos && line.find("MemAllocated=", at) != std::string_view::npos) {
    return at + 2;
  }
  return std::string_view::npos;
}

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

std::size_t progressAnchor(std::string_view line) {
  const auto at = line.find(", skipped=");
  if (at == std::string_view::npos) return std::string_view::npos;
  const auto step = line.rfind("step=", at);
  if (step == std::string_view::npos ||
      (step > 0 && line[step - 1] != ' ' && line[step - 1] != ']')) {
    return std::string_view::npos;  // global_step=…, or someone else's words
  }
  return step;
}

std::optional<double> firstListNumber(std::string_view text) {
  text = trim(text);
  if (!text.starts_with("[")) return std::nullopt;
  text.remove_prefix(1);
  if (const auto open = text.find('(');
      open != std::string_view::npos && open < text.find_first_of(",]")) {
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
  if (!skipped)
    return expectedError(origin, lineNumber, "'skipped=N' with a whole number", trim(line));
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

bool isMicroTimer(std::string_view name) { return name.ends_with("_microstep"); }

bool isForward(std::string_view name) { return name == "fwd" || name == "forward"; }

bool isBackward(std::string_view name) { return name == "bwd" || name == "backward"; }

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
  forEachField(
      line.substr(anchor + std::string_view("time (ms)").size()), "|", [&](const LogField& field) {
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
  if (badKey)
    return expectedError(origin, lineNumber, "milliseconds for '" + *badKey + "'", badValue);
  if (micro) breakdown.kind = BreakdownKind::Micro;
  else if (forward && backward) breakdown.kind = BreakdownKind::Global;
  else breakdown.kind = BreakdownKind::Other;  // ZeRO's optimizer_* timers, pipe_* timers
  if (breakdown.kind == BreakdownKind::Global) breakdown.milliseconds = *forward + *backward + step;
  return std::nullopt;
}

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
                         "'steps: N loss: X iter time (s): T samples/sec: S' with numbers",
                         trim(line));
  }
  pipe.step = *step;
  pipe.loss = finite(pipe.loss);
  pipe.iterSeconds = finite(pipe.iterSeconds);
  pipe.samplesPerSecond = finite(pipe.samplesPerSecond);
  return std::nullopt;
}

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

}  // namespace tb::logs::detail::deepspeed
