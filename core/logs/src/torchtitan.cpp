// torchtitan's step line (MetricsProcessor.log), in every
// version since 2024-03:
//   step: {step:2}  loss: {loss:7.4f}  memory: {GiB:5.2f}GiB({pct:.2f}%)  wps: {round(wps):,}  mfu:
//   {mfu:.2f}%
// with `wps` renamed `tps` (2024-11), `tflops: {:,.2f}` before mfu (2025-02),
// `grad_norm: {:7.4f}` after loss (2025-06), loss as `8.5f` (2026-02) and
// `mfu: N/A` under FP8/MX quantization (2026-02). Around it: the logger's
// `[titan] <date> - root - INFO - ` (older: without `[titan]`), torchrun's
// `[rank0]:` and colours (both off by cleanLine), W&B exports' bare time
// stamp lines and `...` elisions, and other INFO lines, all skipped.
//
// The line is read as `key: value` pairs, a key being a blank-separated word
// that ends in ':' and its value everything up to the next key, rather than
// by splitting on two spaces: `{loss:7.4f}` pads (`loss:  9.4939`), and
// forks add fields (`step: 640/644 = 99.3789%`, `it/s: …`), which are kept
// where they say something (the planned steps) and ignored otherwise.
// `tps` and `tflops` are per device (tokens counted on one rank, divided by
// the non-data-parallel size), memory is the peak reserved GiB (2^30 bytes).
#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <string>

#include "format_parser.hpp"
#include "log_text.hpp"
#include "tb/common/text.hpp"
#include "tb/common/units.hpp"

namespace tb::logs::detail {
namespace {

// `step:` as a key of its own: at the start or after a blank, so neither
// NeMo's `global_step:` nor the validation line `validate step:` counts.
std::size_t findStepKey(std::string_view line) {
  std::size_t at = 0;
  while ((at = line.find("step:", at)) != std::string_view::npos) {
    const bool ownWord = at == 0 || isBlank(line[at - 1]);
    if (ownWord) {
      std::string_view before = line.substr(0, at);
      while (!before.empty() && isBlank(before.back())) before.remove_suffix(1);
      if (!before.ends_with("validate")) return at;
    }
    at += 5;
  }
  return std::string_view::npos;
}

// At most this many fields are read from one line; torchtitan prints seven.
constexpr std::size_t kMaxFields = 24;

// A step line's fields, as LogFields (log_text.hpp) whose keys are the words
// without their ':'. forEachField cuts at a separator, and this line has
// none (see the top of the file).
struct Fields {
  std::array<LogField, kMaxFields> items{};
  std::size_t size = 0;

  [[nodiscard]] const LogField* find(std::string_view key) const {
    for (std::size_t i = 0; i < size; ++i)
      if (items[i].key == key) return &items[i];
    return nullptr;
  }
};

Fields splitFields(std::string_view message) {
  Fields fields;
  std::size_t valueBegin = 0;
  std::size_t valueEnd = 0;
  const auto close = [&] {
    if (fields.size > 0)
      fields.items[fields.size - 1].value = trim(message.substr(valueBegin, valueEnd - valueBegin));
  };
  std::size_t i = 0;
  while (i < message.size()) {
    while (i < message.size() && isBlank(message[i])) ++i;
    const std::size_t start = i;
    while (i < message.size() && !isBlank(message[i])) ++i;
    const std::string_view word = message.substr(start, i - start);
    if (word.size() > 1 && word.back() == ':') {
      close();
      if (fields.size == kMaxFields) return fields;
      fields.items[fields.size++].key = word.substr(0, word.size() - 1);
      valueBegin = i;
      valueEnd = i;
    } else if (!word.empty()) {
      valueEnd = i;
    }
  }
  close();
  return fields;
}

bool isStepLine(std::string_view line, std::size_t& stepAt, Fields& fields) {
  stepAt = findStepKey(line);
  if (stepAt == std::string_view::npos) return false;
  // Cheap test first: every step line has a loss and a token rate.
  const std::string_view message = line.substr(stepAt);
  if (message.find("loss:") == std::string_view::npos) return false;
  if (message.find("tps:") == std::string_view::npos &&
      message.find("wps:") == std::string_view::npos)
    return false;
  fields = splitFields(message);
  // `step:5` (no blank) is not the key: the first field must be `step`.
  return fields.size > 0 && fields.items[0].key == "step" && fields.find("loss") != nullptr &&
         (fields.find("tps") != nullptr || fields.find("wps") != nullptr);
}

// Each step line's record (or its error) is held back until the next line or
// finish(). The importer never feeds a last line without its newline (one cut
// off mid-write: "tps: 7,0", or "tps: 7" for 7,034), so through it the hold
// changes nothing; what it still decides is that a bad line's error comes
// with the next call, as this format's tests expect.
class TorchtitanFormat final : public LineFormat {
 public:
  explicit TorchtitanFormat(std::string_view origin) : origin_(origin) {}

  [[nodiscard]] std::unique_ptr<LineFormat> clone() const override {
    return std::make_unique<TorchtitanFormat>(*this);
  }

  Status feed(std::string_view line, std::uint64_t lineNumber, StepSink& sink) override {
    sink_ = &sink;
    if (Status committed = commitHeld(); !committed) return committed;
    if (line.find("validate step:") != std::string_view::npos) ++validations_;
    std::size_t stepAt = 0;
    Fields fields;
    if (!isStepLine(line, stepAt, fields)) return {};
    held_ = Held{};  // not emplace(): clang 14 rejects it for this nested struct
    held_->line = lineNumber;
    if (Status read = readStep(fields, *held_); !read) held_->error = read.error();
    return {};
  }

  Status finish(runs::ImportedRun& run, bool endedMidLine, StepSink& sink) override {
    sink_ = &sink;  // a copy finishing hands its held records to its own sink
    // A cut last line never reaches feed() (the importer says the run is
    // partial): a record still held is whole.
    static_cast<void>(endedMidLine);
    if (Status committed = commitHeld(); !committed) return committed;
    if (plannedSteps_) run.plannedSteps = plannedSteps_;
    if (sawMemory_) run.memoryKind = "max_reserved";
    return {};
  }

  [[nodiscard]] std::vector<std::string> notes() const override {
    // Its metrics logger times from one logged step to the next, with the
    // validator's run in between.
    if (auto note = validationNote(validations_, "validate step:",
                                   "torchtitan does not time validation apart, so it falls in "
                                   "the window of the next step record, an outlier the medians "
                                   "are not moved by"))
      return {*note};
    return {};
  }

 private:
  struct Held {
    std::uint64_t line = 0;
    runs::ImportedStep step;
    std::optional<std::int64_t> plannedSteps;
    std::optional<Error> error;
  };

  Status commitHeld() {
    if (!held_) return {};
    Held held = std::move(*held_);
    held_.reset();
    if (held.error) return *held.error;
    if (held.plannedSteps) plannedSteps_ = std::max(plannedSteps_.value_or(0), *held.plannedSteps);
    sawMemory_ = sawMemory_ || held.step.memoryBytes.has_value();
    if (sink_ != nullptr) sink_->add(held.step);
    return {};
  }

  Error expected(std::uint64_t line, std::string_view what, std::string_view found) const {
    return expectedError(origin_, line, what, found);
  }

  Status number(const Fields& fields, std::string_view key, std::uint64_t line,
                std::optional<double>& out) const {
    const LogField* field = fields.find(key);
    if (field == nullptr) return {};
    out = parseLogNumber(field->value);
    if (!out) return expected(line, "a number after '" + std::string(key) + ":'", field->value);
    return {};
  }

  Status readStep(const Fields& fields, Held& held) const {
    runs::ImportedStep& step = held.step;
    const std::uint64_t line = held.line;
    // step: `100`, or a fork's `640/644 = 99.3789%`.
    const std::string_view stepText = fields.find("step")->value;
    std::size_t digits = 0;
    while (digits < stepText.size() && isDigit(stepText[digits])) ++digits;
    const auto stepNumber = parseUnsigned(stepText.substr(0, digits));
    if (!stepNumber) return expected(line, "a step number after 'step:'", stepText);
    step.step = *stepNumber;
    if (digits < stepText.size() && stepText[digits] == '/') {
      std::size_t end = digits + 1;
      while (end < stepText.size() && isDigit(stepText[end])) ++end;
      if (const auto planned = parseUnsigned(stepText.substr(digits + 1, end - digits - 1)))
        held.plannedSteps = static_cast<std::int64_t>(*planned);
    }

    if (Status s = number(fields, "loss", line, step.loss); !s) return s;
    if (Status s = number(fields, "grad_norm", line, step.gradNorm); !s) return s;
    if (Status s = number(fields, "tflops", line, step.tflopsPerGpu); !s) return s;

    std::optional<double> tokens;
    if (Status s = number(fields, fields.find("tps") != nullptr ? "tps" : "wps", line, tokens); !s)
      return s;
    step.tokensPerSecond = runs::ScopedRate{*tokens, runs::RateScope::PerGpu};

    if (const LogField* memory = fields.find("memory")) {
      // `72.82GiB(91.97%)`: the GiB before the share of the device.
      const std::size_t unit = memory->value.find("GiB");
      const auto gib = unit == std::string_view::npos
                           ? std::nullopt
                           : parseLogNumber(memory->value.substr(0, unit));
      if (!gib)
        return expected(line, "memory as '<GiB>GiB(<percent>%)' after 'memory:'", memory->value);
      step.memoryBytes = *gib * kGiB;
    }
    if (const LogField* mfu = fields.find("mfu"); mfu != nullptr && mfu->value != "N/A") {
      const auto percent = mfu->value.ends_with('%') ? parseLogNumber(mfu->value) : std::nullopt;
      if (!percent) return expected(line, "a percentage or N/A after 'mfu:'", mfu->value);
      step.mfu = *percent / 100.0;
    }
    return {};
  }

  std::string origin_;
  StepSink* sink_ = nullptr;  ///< the importer's collector, which outlives finish()
  std::optional<Held> held_;
  std::optional<std::int64_t> plannedSteps_;
  bool sawMemory_ = false;
  std::int64_t validations_ = 0;
};

}  // namespace

bool torchtitanClaimsLine(std::string_view line) {
  std::size_t stepAt = 0;
  Fields fields;
  return isStepLine(line, stepAt, fields);
}

std::unique_ptr<LineFormat> makeTorchtitanFormat(std::string_view origin) {
  return std::make_unique<TorchtitanFormat>(origin);
}

}  // namespace tb::logs::detail
