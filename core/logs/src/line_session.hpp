// One text log's reading state: its format's parser, the script's loss lines
// beside it, and the collector both hand records to. A one-shot import feeds
// every line and finishes the session; a following import feeds the lines
// as they are written and finishes a copy each time it wants the records so
// far, so the copy's result is the one-shot import of the same lines.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "format_parser.hpp"
#include "line_reader.hpp"
#include "script_loss.hpp"
#include "step_collector.hpp"
#include "tb/common/expected.hpp"
#include "tb/logs/loss_pattern.hpp"
#include "tb/runs/imported_run.hpp"

namespace tb::logs::detail {

class LineSession {
 public:
  /// `pattern` (a compiled --loss-pattern, or null) outlives the session.
  LineSession(const FormatSpec& spec, const std::filesystem::path& file, const LossPattern* pattern,
              const WarmUp& warmUp);
  /// Everything `other` has read, apart from it: feeding or finishing one
  /// leaves the other as it was.
  LineSession(const LineSession& other);
  LineSession& operator=(const LineSession&) = delete;

  /// One whole cleaned line (log_text.hpp's cleanLine).
  [[nodiscard]] Status feed(std::string_view cleaned, std::uint64_t lineNumber);
  /// Every whole line `reader` gives now, cleaned, up to a last line without
  /// its end (never fed); `fed` says whether any line was. A read error is
  /// the reader's.
  [[nodiscard]] Status feedLines(LineReader& reader, bool& fed);
  /// After the last line: the run's metadata into `run`, what the format
  /// and the loss lines have to say into `notes`. The session is spent.
  [[nodiscard]] Status finish(runs::ImportedRun& run, bool endedMidLine,
                              std::vector<std::string>& notes);

  [[nodiscard]] StepCollector& collector() noexcept { return collector_; }

 private:
  const FormatSpec& spec_;
  std::filesystem::path file_;
  StepCollector collector_;
  std::unique_ptr<LineFormat> format_;
  ScriptLossReader loss_;  ///< after collector_: it hands records to it
  std::string scratch_;    ///< cleanLine's buffer
};

}  // namespace tb::logs::detail
