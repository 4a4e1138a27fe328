// See script_loss.hpp.
#include "script_loss.hpp"

#include <array>
#include <cctype>
#include <utility>

#include "console_text.hpp"
#include "log_text.hpp"
#include "tb/common/text.hpp"

namespace tb::logs::detail {
namespace {

bool isWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

/// The word just before position `at`, blanks skipped: "val" in "val loss".
std::string wordBefore(std::string_view line, std::size_t at) {
  std::size_t end = at;
  while (end > 0 && (line[end - 1] == ' ' || line[end - 1] == '\t')) --end;
  std::size_t start = end;
  while (start > 0 && isWordChar(line[start - 1])) --start;
  return toLower(line.substr(start, end - start));
}

bool evaluationWord(const std::string& word) {
  for (const std::string_view other :
       {"val", "valid", "validation", "eval", "evaluation", "test", "dev", "predict"}) {
    if (word == other) return true;
  }
  return false;
}

/// `[Rank N]` anywhere before the loss.
std::optional<int> rankOf(std::string_view line) {
  const auto at = line.find("[Rank ");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = line.substr(at + std::string_view("[Rank ").size());
  const auto rank = console::takeDigits(rest);
  if (!rank || !rest.starts_with("]") || *rank > (1 << 24)) return std::nullopt;
  return static_cast<int>(*rank);
}

}  // namespace

std::optional<LossLine> readScriptLossLine(std::string_view line) {
  // Most lines of a long log have no loss: they cost one search, no copy.
  if (line.find("oss") == std::string_view::npos && line.find("OSS") == std::string_view::npos)
    return std::nullopt;
  const std::string lower = toLower(line);
  for (std::size_t at = lower.find("loss"); at != std::string::npos;
       at = lower.find("loss", at + 4)) {
    if (at > 0 && isWordChar(lower[at - 1])) continue;  // train_loss, lm_loss, …
    if (evaluationWord(wordBefore(lower, at))) continue;
    std::size_t i = at + 4;
    while (i < lower.size() && lower[i] == ' ') ++i;
    if (i >= lower.size() || (lower[i] != ':' && lower[i] != '=')) continue;  // "loss scale"
    ++i;
    while (i < lower.size() && lower[i] == ' ') ++i;
    std::size_t end = i;
    while (end < line.size() && line[end] != ' ' && line[end] != ',' && line[end] != '|' &&
           line[end] != ';' && line[end] != '\t')
      ++end;
    const auto value = parseLogNumber(line.substr(i, end - i));
    if (!value) continue;
    return LossLine{*value, std::nullopt, rankOf(line.substr(0, at))};
  }
  return std::nullopt;
}

std::optional<LossLine> readPatternLossLine(const LossPattern& pattern, std::string_view line,
                                            std::optional<std::string>& notNumber) {
  const auto match = pattern.find(line);
  if (!match) return std::nullopt;
  const auto value = parseLogNumber(match->value);
  if (!value) {
    notNumber = match->value;
    return std::nullopt;
  }
  LossLine loss{*value, std::nullopt, rankOf(line)};
  if (match->step) {
    const auto step = parseUnsigned(*match->step);
    if (!step) {
      notNumber = *match->step;
      return std::nullopt;
    }
    loss.step = *step;
  }
  return loss;
}

LossAttachingSink::LossAttachingSink(const LossAttachingSink& other, StepSink& inner)
    : inner_(inner),
      overrides_(other.overrides_),
      held_(other.held_),
      pending_(other.pending_),
      rank_(other.rank_),
      lines_(other.lines_),
      attached_(other.attached_),
      unattributed_(other.unattributed_),
      otherRanks_(other.otherRanks_) {}

void LossAttachingSink::add(const runs::ImportedStep& step) {
  if (held_.size() >= kHeldRecords) passOldest();
  held_.push_back(Held{step, false});
  // A loss line that came before its record (a step printed later in the
  // same engine.step()) joins it now.
  if (const auto it = pending_.find(step.step); it != pending_.end()) {
    give(held_.back(), it->second);
    pending_.erase(it);
  }
  // Records come in step order: a loss for an earlier step that has no
  // record by now has none.
  for (auto it = pending_.begin(); it != pending_.end() && it->first < step.step;) {
    ++unattributed_;
    it = pending_.erase(it);
  }
}

void LossAttachingSink::lossLine(const LossLine& line, std::optional<std::int64_t> printedStep) {
  ++lines_;
  if (!acceptRank(line.rank)) {
    ++otherRanks_;
    return;
  }
  std::optional<std::int64_t> step = line.step ? line.step : printedStep;
  if (!step && !held_.empty()) step = held_.back().step.step;
  if (!step) {
    ++unattributed_;  // before the first step the framework printed
    return;
  }
  for (auto it = held_.rbegin(); it != held_.rend(); ++it) {
    if (it->step.step != *step) continue;
    if (!it->hasScriptLoss) give(*it, line.value);
    return;
  }
  if (!held_.empty() && *step <= held_.back().step.step) {
    ++unattributed_;  // its record has gone on already, or there is none
    return;
  }
  if (pending_.size() >= kMaxPending && !pending_.contains(*step)) {
    ++unattributed_;
    return;
  }
  pending_.emplace(*step, line.value);
}

void LossAttachingSink::flush() {
  while (!held_.empty()) passOldest();
  unattributed_ += static_cast<std::int64_t>(pending_.size());
  pending_.clear();
}

bool LossAttachingSink::acceptRank(const std::optional<int>& rank) {
  if (!rank) return true;
  if (!rank_ || (*rank == 0 && *rank_ != 0)) rank_ = rank;
  return *rank == *rank_;
}

void LossAttachingSink::give(Held& held, double loss) {
  held.hasScriptLoss = true;
  if (held.step.loss && !overrides_) return;  // the framework's own loss stands
  held.step.loss = loss;
  ++attached_;
}

void LossAttachingSink::passOldest() {
  inner_.add(held_.front().step);
  held_.pop_front();
}

}  // namespace tb::logs::detail

namespace tb::logs::detail {

ScriptLossReader::ScriptLossReader(const FormatSpec& spec, const LossPattern* pattern,
                                   StepSink& collector)
    : collector_(collector),
      pattern_(pattern),
      builtin_(pattern == nullptr && spec.readsScriptLoss),
      sink_(collector, pattern != nullptr) {}

ScriptLossReader::ScriptLossReader(const ScriptLossReader& other, StepSink& collector)
    : collector_(collector),
      pattern_(other.pattern_),
      builtin_(other.builtin_),
      sink_(other.sink_, collector),
      notNumbers_(other.notNumbers_),
      firstNotNumber_(other.firstNotNumber_),
      longLines_(other.longLines_) {}

void ScriptLossReader::read(std::string_view line, const LineFormat& format) {
  if (!active()) return;
  std::optional<LossLine> loss;
  if (pattern_ != nullptr) {
    if (line.size() > kMaxPatternLine) {
      ++longLines_;
      return;
    }
    std::optional<std::string> notNumber;
    loss = readPatternLossLine(*pattern_, line, notNumber);
    if (notNumber) {
      if (notNumbers_++ == 0) firstNotNumber_ = quotedExcerpt(*notNumber);
      return;
    }
  } else {
    loss = readScriptLossLine(line);
  }
  if (loss) sink_.lossLine(*loss, format.lastPrintedStep());
}

std::vector<std::string> ScriptLossReader::notes(const std::filesystem::path& file) const {
  std::vector<std::string> notes;
  if (!active()) return notes;
  const auto count = [](std::int64_t n, std::string_view one, std::string_view many) {
    return std::to_string(n) + " " + std::string(n == 1 ? one : many);
  };
  const std::string source =
      pattern_ != nullptr ? "--loss-pattern '" + pattern_->text() + "'" : "the script's own lines";
  if (pattern_ != nullptr && sink_.lines() == 0 && notNumbers_ == 0) {
    notes.push_back(source + " matched no line of " + file.string() +
                    (longLines_ > 0 ? " (" + count(longLines_, "line", "lines") + " over " +
                                          std::to_string(kMaxPatternLine) + " bytes not searched)"
                                    : std::string()));
  }
  if (sink_.attached() > 0)
    notes.push_back("loss from " + source + ": " + count(sink_.attached(), "value", "values") +
                    ", each at the last step the framework printed before it" +
                    (pattern_ != nullptr ? " (or its step group's)" : ""));
  if (notNumbers_ > 0)
    notes.push_back(source + ": " + count(notNumbers_, "match", "matches") +
                    " whose group is no number (the first: " + firstNotNumber_ + ")");
  if (sink_.otherRanks() > 0)
    notes.push_back(count(sink_.otherRanks(), "loss line", "loss lines") +
                    " of other ranks left out: each step's loss counts once");
  if (sink_.unattributed() > 0)
    notes.push_back(count(sink_.unattributed(), "loss line", "loss lines") +
                    " with no step record of their own left out (before the first step, or "
                    "for a step the framework did not print)");
  return notes;
}

}  // namespace tb::logs::detail
