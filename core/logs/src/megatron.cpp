// Megatron-LM's console log and the Megatron-DeepSpeed fork's: one
// `iteration N/ M | key: value | … |` line per --log-interval window, the
// one-time `(after N iterations) memory (MB) | …` report, and the argument
// dump at the top. Fields are read by name, so the fields that come and go
// between versions (timestamps, --log-throughput, NaN losses left out,
// forks' extra keys) need no version switch. Facts: docs/LOG_FORMATS.md,
// "Megatron-LM" and "Megatron-DeepSpeed".
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "console_text.hpp"
#include "format_parser.hpp"
#include "log_text.hpp"
#include "tb/common/text.hpp"
#include "tb/common/units.hpp"

namespace tb::logs::detail {
namespace {

using console::afterBracketPrefixes;
using console::takeDigits;

/// A field's number. Forks print two values in one field, the window's and a
/// running one (Primus: `16601.3/17219.3`, `615.5 (avg 615.5)`): the first is
/// this window's, as for every other field.
std::optional<double> fieldNumber(std::string_view value) {
  if (auto number = parseLogNumber(value)) return number;
  for (const std::string_view cut : {std::string_view("/"), std::string_view(" (")}) {
    const auto at = value.find(cut);
    if (at != std::string_view::npos && at > 0) {
      if (auto number = parseLogNumber(value.substr(0, at))) return number;
    }
  }
  return std::nullopt;
}

std::optional<double> finite(double value) {
  return std::isfinite(value) ? std::optional<double>(value) : std::nullopt;
}

/// A value that converts to std::int64_t exactly: finite, whole, not
/// negative and below 2^53 (nan, inf and 1e300 would make the cast undefined).
bool isWholeCount(double value) {
  return std::isfinite(value) && value >= 0.0 && value == std::floor(value) && value < 9.0e15;
}

/// More ranks than this is no real job's world size (the largest runs have
/// tens of thousands); it is not narrowed to int but left unread.
constexpr long long kMaxWorldSize = 1LL << 24;

/// The head of an iteration line: `iteration N/ M |`.
enum class HeadKind : std::uint8_t { NotOurs, Malformed, Iteration };
struct IterationHead {
  std::int64_t iteration = 0;
  std::int64_t planned = 0;
  std::string_view fields;  ///< what follows the first '|'
};

HeadKind readHead(std::string_view line, IterationHead& head) {
  std::string_view text = afterBracketPrefixes(line);
  constexpr std::string_view kWord = "iteration";
  if (!text.starts_with(kWord)) return HeadKind::NotOurs;
  text.remove_prefix(kWord.size());
  if (text.empty() || !isBlank(text.front())) return HeadKind::NotOurs;
  text = skipBlanks(text);
  // Only a first token with '/' is an iteration line ("iteration 20/ 500");
  // "iteration 100 done" and the like are someone else's words.
  const auto tokenEnd = text.find_first_of(" \t|");
  if (text.substr(0, tokenEnd).find('/') == std::string_view::npos) return HeadKind::NotOurs;
  // And only a line with Megatron's `| key: value` fields after the head can
  // be a malformed one of Megatron's: another program's "iteration 3/5:
  // loss 1.2" is skipped like any other logger's line.
  const auto bar = text.find('|');
  if (bar == std::string_view::npos || text.find(':', bar) == std::string_view::npos)
    return HeadKind::NotOurs;
  const auto iteration = takeDigits(text);
  if (!iteration || text.empty() || text.front() != '/') return HeadKind::Malformed;
  text = skipBlanks(text.substr(1));
  const auto planned = takeDigits(text);
  text = skipBlanks(text);
  if (!planned || text.empty() || text.front() != '|') return HeadKind::Malformed;
  head.iteration = *iteration;
  head.planned = *planned;
  head.fields = text.substr(1);
  return HeadKind::Iteration;
}

/// Fields that only the DeepSpeed fork prints (deepspeedai/Megatron-DeepSpeed
/// training_log): they tell the two apart from a single line.
bool hasDeepSpeedForkFields(std::string_view fields) {
  return fields.find("consumed tokens:") != std::string_view::npos ||
         fields.find("tokens per gpu per second (tgs):") != std::string_view::npos ||
         fields.find("| TFLOPs:") != std::string_view::npos ||
         fields.find("samples per second:") != std::string_view::npos;
}

bool claimsIterationLine(std::string_view line, bool deepSpeedFork) {
  IterationHead head;
  if (readHead(line, head) != HeadKind::Iteration) return false;
  // Every version since 2020 prints this field; NeMo's "iteration i/n |"
  // console line (its own format) does not.
  if (head.fields.find("elapsed time per iteration (ms):") == std::string_view::npos) return false;
  return hasDeepSpeedForkFields(head.fields) == deepSpeedFork;
}

/// Megatron-DeepSpeed's argument dump has `deepspeed ... True|False` (the
/// DeepSpeed config arguments); Megatron-LM's has no such key. It comes
/// before the DeepSpeed engine's own lines, which a DeepSpeed log also has.
bool isDeepSpeedForkArgument(std::string_view line) {
  std::string_view key;
  std::string_view value;
  return console::readDotted(line, key, value) && key == "deepspeed" &&
         (value == "True" || value == "False");
}

/// A value the whole run shares, where every record agrees (batch-size
/// ramp-up or curriculum learning make it vary, then it is no run value).
class SameEverywhere {
 public:
  void see(std::int64_t value) {
    if (!value_) value_ = value;
    else if (*value_ != value) varies_ = true;
  }
  [[nodiscard]] std::optional<std::int64_t> value() const {
    return varies_ ? std::nullopt : value_;
  }

 private:
  std::optional<std::int64_t> value_;
  bool varies_ = false;
};

/// What a memory report line said, for the record of its iteration.
struct MemoryReport {
  std::int64_t iteration = 0;
  double bytes = 0.0;
  std::string kind;
};

class MegatronFormat final : public LineFormat {
 public:
  MegatronFormat(std::string_view origin, bool deepSpeedFork)
      : origin_(origin), deepSpeedFork_(deepSpeedFork) {}

  [[nodiscard]] std::unique_ptr<LineFormat> clone() const override {
    return std::make_unique<MegatronFormat>(*this);
  }

  Status feed(std::string_view line, std::uint64_t lineNumber, StepSink& sink) override {
    sink_ = &sink;
    IterationHead head;
    switch (readHead(line, head)) {
      case HeadKind::Iteration: return readIteration(head, lineNumber);
      case HeadKind::Malformed:
        return expectedError(origin_, lineNumber, "'iteration N/ M |' with whole numbers",
                             trim(line));
      case HeadKind::NotOurs: break;
    }
    const std::string_view payload = afterBracketPrefixes(line);
    if (payload.find("validation loss at iteration") != std::string_view::npos) ++evaluations_;
    if (payload.starts_with("(after ") && payload.find(" memory (MB)") != std::string_view::npos) {
      return readMemory(payload, lineNumber);
    }
    readArgumentDump(line);
    return {};
  }

  // The importer does not feed an unfinished last line, and judges partial
  // itself (a file ending mid-line, a last iteration a whole log interval
  // short of train_iters): nothing here is Megatron's own.
  Status finish(runs::ImportedRun& run, bool /*endedMidLine*/, StepSink& sink) override {
    sink_ = &sink;  // a copy finishing hands its held records to its own sink
    flushPending();

    if (state_.worldSize) run.worldSize = static_cast<int>(*state_.worldSize);
    if (state_.sequenceLength) run.sequenceLength = state_.sequenceLength;
    else if (auto seq = state_.actualSeqlen.value()) run.sequenceLength = seq;
    if (state_.globalBatch) run.globalBatch = state_.globalBatch;
    else if (auto gbs = state_.lineBatch.value()) run.globalBatch = gbs;
    const auto planned = state_.trainIters ? state_.trainIters : state_.lineTrainIters;
    if (planned) run.plannedSteps = planned;
    if (!state_.memoryKind.empty()) run.memoryKind = state_.memoryKind;
    return {};
  }

  [[nodiscard]] std::vector<std::string> notes() const override {
    if (auto note = validationNote(evaluations_, "validation loss at iteration",
                                   "Megatron-LM stops its interval timer while it evaluates, so "
                                   "elapsed time per iteration is training time"))
      return {*note};
    return {};
  }

 private:
  struct State {
    std::optional<runs::ImportedStep> pending;  ///< held for its memory report, which follows it
    std::optional<MemoryReport> earlyMemory;    ///< a report that came before its iteration line
    bool inArguments = false;
    std::optional<long long> worldSize;
    std::optional<std::int64_t> sequenceLength;
    std::optional<std::int64_t> globalBatch;
    std::optional<std::int64_t> trainIters;
    std::optional<std::int64_t> lineTrainIters;
    std::optional<std::int64_t> lastIteration;
    SameEverywhere lineBatch;
    SameEverywhere actualSeqlen;
    std::string memoryKind;
  };

  void flushPending() {
    if (!state_.pending) return;
    if (sink_ != nullptr) sink_->add(*state_.pending);
    state_.pending.reset();
  }

  Status readIteration(const IterationHead& head, std::uint64_t lineNumber) {
    runs::ImportedStep step;
    step.step = head.iteration;
    std::optional<double> lmLoss;
    std::optional<double> plainLoss;
    double skipped = 0.0;
    std::optional<std::string_view> badKey;
    std::string_view badValue;

    forEachField(head.fields, "|", [&](const LogField& field) {
      if (badKey) return;
      const std::string_view key = field.key;
      const auto number = [&]() -> std::optional<double> {
        auto value = fieldNumber(field.value);
        if (!value) {
          badKey = key;
          badValue = field.value;
        }
        return value;
      };
      if (key == "elapsed time per iteration (ms)") {
        if (auto v = number()) step.stepTimeSeconds = finite(*v / 1000.0);
      } else if (key == "throughput per GPU (TFLOP/s/GPU)" ||
                 key == "compute per GPU (TFLOP/s/GPU)" || (deepSpeedFork_ && key == "TFLOPs")) {
        if (auto v = number()) step.tflopsPerGpu = finite(*v);
      } else if (key == "learning rate") {
        if (auto v = number()) step.learningRate = finite(*v);
      } else if (key == "global batch size") {
        if (auto v = number()) {
          if (isWholeCount(*v) && *v >= 1.0) {
            step.globalBatch = static_cast<std::int64_t>(*v);
          } else {
            badKey = key;
            badValue = field.value;
          }
        }
      } else if (key == "lm loss") {
        if (auto v = number()) lmLoss = finite(*v);
      } else if (key == "loss") {
        if (auto v = number()) plainLoss = finite(*v);
      } else if (key == "grad norm") {
        if (auto v = number()) step.gradNorm = finite(*v);
      } else if (key == "number of skipped iterations" || key == "number of nan iterations") {
        if (auto v = number()) skipped += *v;
      } else if (key == "tokens per GPU (tokens/s/GPU)" ||
                 key == "tokens/s/GPU inst/harmonic mean" ||
                 (deepSpeedFork_ && key == "tokens per gpu per second (tgs)")) {
        if (auto v = number()) {
          if (auto rate = finite(*v))
            step.tokensPerSecond = runs::ScopedRate{*rate, runs::RateScope::PerGpu};
        }
      } else if (deepSpeedFork_ && key == "samples per second") {
        if (auto v = number()) {
          if (auto rate = finite(*v))
            step.samplesPerSecond = runs::ScopedRate{*rate, runs::RateScope::Job};
        }
      } else if (deepSpeedFork_ && key == "actual seqlen") {
        if (auto v = number()) {
          if (isWholeCount(*v) && *v >= 1.0) {
            state_.actualSeqlen.see(static_cast<std::int64_t>(*v));
          } else {
            badKey = key;
            badValue = field.value;
          }
        }
      }
      // Any other key (loss scale, consumed samples, num zeros, energy,
      // MoE losses, a fork's own fields) is not a step value: ignored.
    });
    if (badKey) {
      return expectedError(origin_, lineNumber, "a number for '" + std::string(*badKey) + "'",
                           badValue);
    }

    step.loss = lmLoss ? lmLoss : plainLoss;
    step.skippedUpdate = skipped > 0.0;
    // Megatron-LM prints no samples/s; the job's is the window's global batch
    // over its time per iteration (the fork prints it).
    if (!step.samplesPerSecond && step.globalBatch && step.stepTimeSeconds &&
        *step.stepTimeSeconds > 0.0) {
      step.samplesPerSecond = runs::ScopedRate{
          static_cast<double>(*step.globalBatch) / *step.stepTimeSeconds, runs::RateScope::Job};
    }
    if (step.globalBatch) state_.lineBatch.see(*step.globalBatch);
    state_.lineTrainIters = head.planned;
    state_.lastIteration = head.iteration;

    flushPending();
    if (state_.earlyMemory && state_.earlyMemory->iteration == step.step) {
      step.memoryBytes = state_.earlyMemory->bytes;
      state_.earlyMemory.reset();
    }
    state_.pending = step;
    return {};
  }

  /// `[Rank 0] (after 20 iterations) memory (MB) | allocated: … | max
  /// allocated: … | reserved: … | max reserved: …` (`cached` / `max cached`
  /// before PyTorch renamed them). Printed once, after the first logged
  /// window, by every rank that is data-parallel rank 0: the record of that
  /// iteration gets the largest `max allocated` (the GPU that bounds the fit).
  Status readMemory(std::string_view payload, std::uint64_t lineNumber) {
    std::string_view text = payload.substr(std::string_view("(after ").size());
    const auto iteration = takeDigits(text);
    if (!iteration || !text.starts_with(" iteration")) {
      return expectedError(origin_, lineNumber, "'(after N iterations) memory (MB)'", payload);
    }
    text = text.substr(text.find(" memory (MB)") + std::string_view(" memory (MB)").size());
    std::optional<double> maxAllocated;
    std::optional<double> maxReserved;
    std::optional<std::string_view> badKey;
    std::string_view badValue;
    forEachField(text, "|", [&](const LogField& field) {
      if (badKey) return;
      const bool isMaxAllocated = field.key == "max allocated";
      const bool isMaxReserved = field.key == "max reserved" || field.key == "max cached";
      if (!isMaxAllocated && !isMaxReserved) return;
      const auto value = parseLogNumber(field.value);
      if (!value || !std::isfinite(*value) || *value < 0.0) {
        badKey = field.key;
        badValue = field.value;
        return;
      }
      // report_memory divides by 1024*1024: its "MB" is MiB.
      (isMaxAllocated ? maxAllocated : maxReserved) = *value * kMiB;
    });
    if (badKey) {
      return expectedError(origin_, lineNumber, "a number of MB for '" + std::string(*badKey) + "'",
                           badValue);
    }
    if (!maxAllocated && !maxReserved) return {};
    MemoryReport report{*iteration, maxAllocated ? *maxAllocated : *maxReserved,
                        maxAllocated ? "max_allocated" : "max_reserved"};
    if (state_.memoryKind.empty()) state_.memoryKind = report.kind;
    if (report.kind != state_.memoryKind) return {};  // one kind per run
    if (state_.pending && state_.pending->step == report.iteration) {
      if (!state_.pending->memoryBytes || *state_.pending->memoryBytes < report.bytes) {
        state_.pending->memoryBytes = report.bytes;
      }
    } else if (!state_.lastIteration || report.iteration > *state_.lastIteration) {
      // Rank 0 prints it, the last rank prints the iteration line: in a
      // merged stream either may come first.
      if (!state_.earlyMemory || state_.earlyMemory->iteration != report.iteration ||
          state_.earlyMemory->bytes < report.bytes) {
        state_.earlyMemory = report;
      }
    }
    return {};
  }

  /// `------------------------ arguments ------------------------` then one
  /// `  name ....... value` line per argument, sorted, then `---- end of
  /// arguments ----` (`_print_args`, printed by rank 0 at start-up).
  void readArgumentDump(std::string_view line) {
    const std::string_view text = trim(line);
    if (text.starts_with("---") && text.ends_with("---")) {
      if (text.find(" end of arguments ") != std::string_view::npos) state_.inArguments = false;
      else if (text.find(" arguments ") != std::string_view::npos) state_.inArguments = true;
      return;
    }
    if (!state_.inArguments) return;
    std::string_view key;
    std::string_view value;
    if (!console::readDotted(line, key, value)) return;
    // "None" (train_iters when --train-samples is used) is no value.
    const auto number = parseUnsigned(value);
    if (!number) return;
    if (key == "world_size") {
      if (*number >= 1 && *number < kMaxWorldSize) state_.worldSize = *number;
    } else if (key == "seq_length") state_.sequenceLength = *number;
    else if (key == "global_batch_size") state_.globalBatch = *number;
    else if (key == "train_iters") state_.trainIters = *number;
  }

  std::string origin_;
  bool deepSpeedFork_;
  StepSink* sink_ = nullptr;  ///< where the record held for its memory line goes
  State state_;
  std::int64_t evaluations_ = 0;
};

}  // namespace

bool megatronClaimsLine(std::string_view line) { return claimsIterationLine(line, false); }

bool megatronDeepSpeedClaimsLine(std::string_view line) {
  return claimsIterationLine(line, true) || isDeepSpeedForkArgument(line);
}

std::unique_ptr<LineFormat> makeMegatronFormat(std::string_view origin) {
  return std::make_unique<MegatronFormat>(origin, false);
}

std::unique_ptr<LineFormat> makeMegatronDeepSpeedFormat(std::string_view origin) {
  return std::make_unique<MegatronFormat>(origin, true);
}

}  // namespace tb::logs::detail
