// Reads a file line by line through a fixed buffer, so a multi-gigabyte log
// is read in constant memory. A line longer than the bound is skipped (and
// counted) rather than buffered without end. A following reader (a log
// still being written) holds a last line without its end back until the
// end arrives, and goes on from where it stopped once resumed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

#include "tb/common/expected.hpp"

namespace tb::logs::detail {

class LineReader {
 public:
  /// Lines longer than this are skipped, not given (no log line of any
  /// supported format comes close; another program's dump in the same
  /// stream may).
  static constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;

  [[nodiscard]] static Expected<LineReader> open(const std::filesystem::path& file);
  /// A reader of a file still being written: at the end of what is there,
  /// a line without its end (and a last '\r', which may be the start of
  /// "\r\n") is not given but kept, and resume() reads on after it.
  [[nodiscard]] static Expected<LineReader> openFollowing(const std::filesystem::path& file);

  /// After next() returned false at the end of the file: reads on from
  /// there, so the bytes appended since are given by next(). False after
  /// an error.
  bool resume();

  /// The next line without its line end. A line ends at "\n", "\r\n" or a
  /// lone '\r' (tqdm redraws its progress bar after a '\r': each redraw is a
  /// line). Returns false at the end of the file, or on an error (see
  /// error()).
  [[nodiscard]] bool next(std::string_view& line);

  /// 1-based, of the last line given; skipped long lines count too, so the
  /// numbers stay those of the file.
  [[nodiscard]] std::uint64_t lineNumber() const noexcept { return lineNumber_; }
  /// Lines over kMaxLineBytes skipped so far.
  [[nodiscard]] std::uint64_t skippedLongLines() const noexcept { return skippedLongLines_; }
  [[nodiscard]] bool lastLineUnterminated() const noexcept {
    return unterminated_;
  }  ///< the file ended mid-line
  [[nodiscard]] const std::optional<Error>& error() const noexcept { return error_; }
  [[nodiscard]] std::uint64_t bytesRead() const noexcept { return bytesRead_; }
  /// Bytes read but not given yet: a following reader's held last line.
  [[nodiscard]] std::size_t pendingBytes() const noexcept { return buffer_.size() - begin_; }

 private:
  explicit LineReader(std::filesystem::path file) : file_(std::move(file)) {}
  std::filesystem::path file_;
  std::ifstream in_;
  std::string buffer_;
  std::size_t begin_ = 0;  ///< start of the unread part of buffer_
  bool eof_ = false;
  bool unterminated_ = false;
  bool skipping_ = false;   ///< inside a line over kMaxLineBytes, dropping it up to its end
  bool following_ = false;  ///< the file may grow: an unended last line waits
  std::uint64_t skippedLongLines_ = 0;
  std::uint64_t lineNumber_ = 0;
  std::uint64_t bytesRead_ = 0;
  std::optional<Error> error_;
};

}  // namespace tb::logs::detail
