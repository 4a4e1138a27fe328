// The loss a training script prints itself, beside a framework that prints
// none (the DeepSpeed engine's lines carry no loss; DeepSpeedExamples log it
// with loguru: `2023-08-02 00:41:17.936 | INFO | __main__:log_dist:54 -
// [Rank 0] Loss: 10.8766`), or from any line a user's --loss-pattern
// describes. A loss line belongs to the last step the framework printed
// before it (or to the step its pattern's `step` group names), and a loss
// printed by several ranks counts once: rank 0's, or the one rank the file
// shows.
#pragma once

#include <cstdint>
#include <deque>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "format_parser.hpp"
#include "tb/logs/loss_pattern.hpp"
#include "tb/runs/imported_run.hpp"

namespace tb::logs::detail {

struct LossLine {
  double value = 0.0;
  std::optional<std::int64_t> step;  ///< the line's own step, where it names one
  std::optional<int> rank;           ///< `[Rank N]`, where the line says
};

/// A script's own loss line in the common forms: `Loss: X`, `loss: X`,
/// `loss = X`, `loss=X`, after any logger header, with or without a
/// `[Rank N]` prefix. `val loss`, `eval_loss`, `loss scale` and the like are
/// not the training loss and are not read.
[[nodiscard]] std::optional<LossLine> readScriptLossLine(std::string_view line);

/// What a user's pattern reads from a line; `notNumber` is set to the
/// group's text when the pattern matched but its value is no number.
[[nodiscard]] std::optional<LossLine> readPatternLossLine(const LossPattern& pattern,
                                                          std::string_view line,
                                                          std::optional<std::string>& notNumber);

/// Passes records on to `inner`, holding the newest kHeldRecords back (a
/// loss line comes after its step's record, a pattern's named step may
/// come later still), and gives each the loss that the script's lines
/// printed for its step.
class LossAttachingSink final : public StepSink {
 public:
  /// `overrides`: a user's pattern, whose loss wins over the framework's.
  LossAttachingSink(StepSink& inner, bool overrides) : inner_(inner), overrides_(overrides) {}
  /// A copy of `other`'s state that passes records on to `inner` (a copy of
  /// `other`'s inner sink): a following import finishes such a copy.
  LossAttachingSink(const LossAttachingSink& other, StepSink& inner);
  LossAttachingSink(const LossAttachingSink&) = delete;
  LossAttachingSink& operator=(const LossAttachingSink&) = delete;

  void add(const runs::ImportedStep& step) override;
  /// A loss line; `printedStep` is the last step the format printed, if it
  /// knows (else the newest record's step is taken).
  void lossLine(const LossLine& line, std::optional<std::int64_t> printedStep);
  /// After the format's finish(): the held record goes on.
  void flush();

  [[nodiscard]] std::int64_t lines() const noexcept { return lines_; }
  [[nodiscard]] std::int64_t attached() const noexcept { return attached_; }
  [[nodiscard]] std::int64_t unattributed() const noexcept { return unattributed_; }
  [[nodiscard]] std::int64_t otherRanks() const noexcept { return otherRanks_; }

 private:
  static constexpr std::size_t kMaxPending = 4096;
  static constexpr std::size_t kHeldRecords = 64;
  struct Held {
    runs::ImportedStep step;
    bool hasScriptLoss = false;
  };
  bool acceptRank(const std::optional<int>& rank);
  void give(Held& held, double loss);
  void passOldest();

  StepSink& inner_;
  bool overrides_ = false;
  std::deque<Held> held_;                   ///< in file order
  std::map<std::int64_t, double> pending_;  ///< losses of steps no record has reached yet
  std::optional<int> rank_;
  std::int64_t lines_ = 0;
  std::int64_t attached_ = 0;
  std::int64_t unattributed_ = 0;
  std::int64_t otherRanks_ = 0;
};

}  // namespace tb::logs::detail

namespace tb::logs::detail {

/// One import's loss lines: the built-in forms where the format reads them
/// (FormatSpec::readsScriptLoss), a user's pattern in every text format,
/// or neither (then sink() is the collector itself and read() does nothing).
class ScriptLossReader {
 public:
  ScriptLossReader(const FormatSpec& spec, const LossPattern* pattern, StepSink& collector);
  /// `other`'s state over `collector`, a copy of `other`'s collector.
  ScriptLossReader(const ScriptLossReader& other, StepSink& collector);
  ScriptLossReader(const ScriptLossReader&) = delete;
  ScriptLossReader& operator=(const ScriptLossReader&) = delete;

  /// Where the format's records go.
  [[nodiscard]] StepSink& sink() { return active() ? static_cast<StepSink&>(sink_) : collector_; }
  /// After the format has read `line`.
  void read(std::string_view line, const LineFormat& format);
  /// After the format's finish().
  void finish() { sink_.flush(); }
  /// What to tell the user about the loss lines of `file`.
  [[nodiscard]] std::vector<std::string> notes(const std::filesystem::path& file) const;

 private:
  /// Longer lines are not searched by a pattern: std::regex recurses per
  /// character, and no training script's loss line is this long.
  static constexpr std::size_t kMaxPatternLine = 4096;
  [[nodiscard]] bool active() const { return builtin_ || pattern_ != nullptr; }

  StepSink& collector_;
  const LossPattern* pattern_;
  bool builtin_;
  LossAttachingSink sink_;
  std::int64_t notNumbers_ = 0;
  std::string firstNotNumber_;
  std::int64_t longLines_ = 0;
};

}  // namespace tb::logs::detail
