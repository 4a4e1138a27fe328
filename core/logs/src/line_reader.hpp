// Reads a file line by line through a fixed buffer, so a multi-gigabyte log
// is read in constant memory. A line longer than the bound is refused rather
// than buffered without end.
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
  /// Lines longer than this are an error (no log line of any supported
  /// format comes close; a binary file does).
  static constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;

  [[nodiscard]] static Expected<LineReader> open(const std::filesystem::path& file);

  /// The next line without its '\n' (a '\r' stays: cleanLine removes it).
  /// Returns false at the end of the file, or on an error (see error()).
  [[nodiscard]] bool next(std::string_view& line);

  [[nodiscard]] std::uint64_t lineNumber() const noexcept { return lineNumber_; }  ///< 1-based, of the last line given
  [[nodiscard]] bool lastLineUnterminated() const noexcept { return unterminated_; }  ///< the file ended mid-line
  [[nodiscard]] const std::optional<Error>& error() const noexcept { return error_; }
  [[nodiscard]] std::uint64_t bytesRead() const noexcept { return bytesRead_; }

 private:
  explicit LineReader(std::filesystem::path file) : file_(std::move(file)) {}
  std::filesystem::path file_;
  std::ifstream in_;
  std::string buffer_;
  std::size_t begin_ = 0;  ///< start of the unread part of buffer_
  bool eof_ = false;
  bool unterminated_ = false;
  std::uint64_t lineNumber_ = 0;
  std::uint64_t bytesRead_ = 0;
  std::optional<Error> error_;
};

}  // namespace tb::logs::detail
