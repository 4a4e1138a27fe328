// Lightning's CSVLogger metrics.csv (src/lightning/fabric/loggers/csv_logs.py
// _ExperimentWriter): one row per log_metrics call with `step` added, sparse
// (empty cells for the keys that call did not log), the header in insertion
// order up to Lightning 2.1 and sorted since 2.2. NeMo's metric names are in
// nemo_metrics.hpp; docs/LOG_FORMATS.md, "NeMo / Lightning", has the rest.
//
// Several rows of one step (LearningRateMonitor logs apart from the module's
// own metrics) become one record; rows with no training value (validation
// rows: val_loss, epoch) are left out.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "format_parser.hpp"
#include "log_text.hpp"
#include "nemo_metrics.hpp"
#include "tb/common/text.hpp"

namespace tb::logs::detail {
namespace {

/// Splits one CSV record as Python's csv module writes it (QUOTE_MINIMAL: a
/// cell with a comma, a quote or a line break is quoted, quotes doubled).
/// Returns false when the text ends inside quotes: the record goes on on the
/// next line.
bool splitCsv(std::string_view text, std::vector<std::string>& cells) {
  cells.clear();
  std::string cell;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c != '"') {
        cell += c;
      } else if (i + 1 < text.size() && text[i + 1] == '"') {
        cell += '"';
        ++i;
      } else {
        quoted = false;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.push_back(std::move(cell));
      cell.clear();
    } else {
      cell += c;
    }
  }
  if (quoted) return false;
  cells.push_back(std::move(cell));
  return true;
}

/// Whether `text` ends inside a quoted cell, given whether it starts inside
/// one. Every quote toggles: a doubled quote inside a cell toggles twice, as
/// splitCsv reads it, so the parity is splitCsv's state at the end. Lets a
/// record spanning lines be scanned once per line and split once, when its
/// last line closes the quote, instead of re-split at every line.
bool endsQuoted(std::string_view text, bool quoted) {
  const auto quotes = std::count(text.begin(), text.end(), '"');
  return (quotes % 2 != 0) != quoted;
}

/// The header row: names only (no cell is a number, none is empty), one of
/// them Lightning's own `step`.
bool isHeader(const std::vector<std::string>& cells) {
  if (cells.size() < 2) return false;
  bool hasStep = false;
  for (const std::string& cell : cells) {
    const std::string_view name = trim(cell);
    if (name.empty() || parseLogNumber(name)) return false;
    if (name == "step") hasStep = true;
  }
  return hasStep;
}

class LightningCsvFormat final : public LineFormat {
 public:
  explicit LightningCsvFormat(std::string_view origin) : origin_(origin) {}

  [[nodiscard]] std::unique_ptr<LineFormat> clone() const override {
    return std::make_unique<LightningCsvFormat>(*this);
  }

  Status feed(std::string_view line, std::uint64_t lineNumber, StepSink& sink) override {
    sink_ = &sink;
    lastLine_ = lineNumber;
    std::uint64_t recordLine = lineNumber;
    if (continuing_) {
      continued_ += '\n';
      continued_ += line;
      recordLine = continuedLine_;
      if (endsQuoted(line, true)) {
        if (continued_.size() > kMaxRecordBytes) {
          return lineError(origin_, continuedLine_,
                           "expected a closing quote, found none in " +
                               std::to_string(continued_.size()) + " bytes");
        }
        return {};
      }
      splitCsv(continued_, cells_);  // the quote closed on this line: the record is whole
      continuing_ = false;
      continued_.clear();
    } else if (endsQuoted(withoutBom(line), false)) {
      // A quoted cell with a line break in it: the record ends on a later line.
      continuing_ = true;
      continued_.assign(withoutBom(line));
      continuedLine_ = lineNumber;
      return {};
    } else {
      splitCsv(withoutBom(line), cells_);
    }

    // Another whole line came, so the row held back is complete.
    if (Status status = commitHeld(); !status) return status;
    if (cells_.size() == 1 && trim(cells_.front()).empty()) return {};  // a blank line
    if (isHeader(cells_)) {
      // Lightning 2.1+ rewrites the file with a new header when new keys
      // appear; a header further down starts a new set of columns.
      columns_.clear();
      for (const std::string& name : cells_)
        columns_.push_back({std::string(trim(name)), nemoKey(trim(name))});
      return {};
    }
    if (columns_.empty()) {
      return lineError(origin_, recordLine,
                       "expected the metrics.csv header (names, one of them \"step\"), found '" +
                           std::string(line.substr(0, 80)) + "'");
    }
    held_ = Held{recordLine, lineNumber, {}, {}};
    readRow(held_->metrics, held_->error, recordLine);
    return {};
  }

  [[nodiscard]] std::vector<std::string> notes() const override {
    if (auto note = validationNote(untimedRows_, "rows with no training value",
                                   "metrics.csv gives them no time: the step times and "
                                   "throughputs it logs are per training step"))
      return {*note};
    return {};
  }

  Status finish(runs::ImportedRun& run, bool endedMidLine, StepSink& sink) override {
    sink_ = &sink;  // a copy finishing hands its held records to its own sink
    if (continuing_) {
      // The file ends inside a quoted cell: a row cut off while being written.
      markPartial(run, "the last row is cut off");
    } else if (endedMidLine) {
      // The importer left the unterminated last line out: its last cell may
      // be cut short.
      markPartial(run, "the last row is cut off");
    }
    if (Status status = commitHeld(); !status) return status;
    records_.finish(run, sink_);
    return {};
  }

 private:
  static constexpr std::size_t kMaxRecordBytes = std::size_t{1} << 20;

  struct Column {
    std::string name;
    NemoKeyInfo info;
  };
  struct Held {
    std::uint64_t line = 0;     ///< where the row starts (for messages)
    std::uint64_t endLine = 0;  ///< where it ends (a quoted cell may span lines)
    NemoMetrics metrics;
    std::optional<Error> error;
  };

  void readRow(NemoMetrics& metrics, std::optional<Error>& error, std::uint64_t line) const {
    if (cells_.size() != columns_.size()) {
      // csv.DictWriter writes every column on every row, empty or not.
      error = lineError(origin_, line,
                        "expected " + std::to_string(columns_.size()) +
                            " cells as the header has, found " + std::to_string(cells_.size()));
      return;
    }
    for (std::size_t i = 0; i < cells_.size(); ++i) {
      const Column& column = columns_[i];
      const std::string_view cell = trim(cells_[i]);
      if (cell.empty() || column.info.key == NemoKey::Unknown) continue;
      const auto value = parseLogNumber(cell);
      if (!value) {
        error = lineError(origin_, line,
                          "expected a number in column \"" + column.name + "\", found '" +
                              std::string(cell) + "'");
        return;
      }
      if (!setNemoMetric(column.info, *value, metrics)) {
        error = lineError(origin_, line,
                          "expected a whole step number in column \"" + column.name +
                              "\", found '" + std::string(cell) + "'");
        return;
      }
    }
  }

  Status commitHeld() {
    if (!held_) return {};
    Held row = std::move(*held_);
    held_.reset();
    if (row.error) return *row.error;
    const NemoMetrics& metrics = row.metrics;
    if (!metrics.hasTrainingValue()) {  // validation or epoch-only row
      ++untimedRows_;
      return {};
    }
    const auto step = metrics.step ? metrics.step : metrics.globalStep;
    if (!step) return {};
    records_.add(metrics, *step, sink_);
    return {};
  }

  static void markPartial(runs::ImportedRun& run, const std::string& reason) {
    run.partial = true;
    run.partialReason = reason;
  }

  std::string origin_;
  StepSink* sink_ = nullptr;  ///< feed()'s, then finish()'s for the records still merging
  std::int64_t untimedRows_ = 0;
  std::vector<Column> columns_;
  std::vector<std::string> cells_;
  bool continuing_ = false;
  std::string continued_;
  std::uint64_t continuedLine_ = 0;
  std::uint64_t lastLine_ = 0;
  std::optional<Held> held_;
  NemoRecords records_;
};

}  // namespace

bool lightningCsvClaimsLine(std::string_view line) {
  std::vector<std::string> cells;
  if (!splitCsv(withoutBom(line), cells) || !isHeader(cells)) return false;
  // Lightning's Trainer adds `epoch` to every call; NeMo's names say NeMo.
  for (const std::string& cell : cells) {
    const std::string_view name = trim(cell);
    if (name == "epoch") return true;
    const NemoKey key = nemoKey(name).key;
    if (key != NemoKey::Unknown && key != NemoKey::Step) return true;
  }
  return false;
}

std::unique_ptr<LineFormat> makeLightningCsvFormat(std::string_view origin) {
  return std::make_unique<LightningCsvFormat>(origin);
}

}  // namespace tb::logs::detail
