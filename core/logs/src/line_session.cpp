#include "line_session.hpp"

#include "log_text.hpp"

namespace tb::logs::detail {

LineSession::LineSession(const FormatSpec& spec, const std::filesystem::path& file,
                         const LossPattern* pattern, const WarmUp& warmUp)
    : spec_(spec),
      file_(file),
      collector_(warmUp),
      format_(spec.makeLineFormat(file.string())),
      loss_(spec, pattern, collector_) {}

LineSession::LineSession(const LineSession& other)
    : spec_(other.spec_),
      file_(other.file_),
      collector_(other.collector_),
      format_(other.format_->clone()),
      loss_(other.loss_, collector_) {}

Status LineSession::feed(std::string_view cleaned, std::uint64_t lineNumber) {
  if (Status fed = format_->feed(cleaned, lineNumber, loss_.sink()); !fed) return fed;
  loss_.read(cleaned, *format_);
  return {};
}

Status LineSession::feedLines(LineReader& reader, bool& fed) {
  std::string_view line;
  while (reader.next(line)) {
    // A last line without its newline was still being written (or the
    // writer was killed): any number in it may be cut ("tps: 55,3"), so it
    // is no record. finish() is told; every line before it is whole.
    if (reader.lastLineUnterminated()) break;
    if (Status status = feed(cleanLine(line, scratch_), reader.lineNumber()); !status)
      return status;
    fed = true;
  }
  if (reader.error()) return *reader.error();
  return {};
}

// The sink the format was fed is the session's collector, which lives on
// past finish(): what a format held back (a record waiting for its memory
// line, a row for its continuation) it hands over here.
Status LineSession::finish(runs::ImportedRun& run, bool endedMidLine,
                           std::vector<std::string>& notes) {
  Status finished = format_->finish(run, endedMidLine, loss_.sink());
  loss_.finish();
  notes = format_->notes();
  const std::vector<std::string> lossNotes = loss_.notes(file_);
  notes.insert(notes.end(), lossNotes.begin(), lossNotes.end());
  return finished;
}

}  // namespace tb::logs::detail
