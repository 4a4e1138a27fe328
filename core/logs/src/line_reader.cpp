// Lines come out of one buffer that is refilled a chunk at a time: the unread
// tail moves to the front and the next chunk is appended, so the buffer never
// holds more than the longest line plus one chunk, whatever the file's size.
//
// Binary files: a NUL byte in the first 4 KiB refuses the file, the test grep
// and git use. No training log prints a NUL, while every binary container
// (event files, checkpoints, archives, safetensors) has one up front. Bytes
// that are not UTF-8 are not refused: logs carry Latin-1 host names and
// multi-byte characters cut by a truncation, and the parsers only match
// ASCII keys. A binary file without an early NUL ends up as a line over
// kMaxLineBytes, which is refused too.
#include "line_reader.hpp"

#include <algorithm>
#include <cstring>
#include <system_error>

namespace tb::logs::detail {
namespace {

constexpr std::size_t kChunkBytes = std::size_t{64} << 10;
constexpr std::size_t kBinaryProbeBytes = std::size_t{4} << 10;

}  // namespace

Expected<LineReader> LineReader::open(const std::filesystem::path& file) {
  std::error_code ec;
  const auto status = std::filesystem::status(file, ec);
  if (ec || !std::filesystem::exists(status))
    return makeError(ErrorKind::NotFound, file.string() + ": no such file");
  if (std::filesystem::is_directory(status))
    return makeError(ErrorKind::BadInput, file.string() + ": expected a file, found a folder");
  LineReader reader(file);
  reader.in_.open(file, std::ios::binary);
  if (!reader.in_) return makeError(ErrorKind::Io, file.string() + ": cannot open for reading");
  reader.buffer_.reserve(kChunkBytes * 2);
  return reader;
}

bool LineReader::next(std::string_view& line) {
  if (error_) return false;
  while (true) {
    const std::size_t newline = buffer_.find('\n', begin_);
    if (newline != std::string::npos) {
      const std::size_t length = newline - begin_;
      if (length > kMaxLineBytes) break;  // reported below, with its line number
      line = std::string_view(buffer_).substr(begin_, length);
      begin_ = newline + 1;
      ++lineNumber_;
      return true;
    }
    if (buffer_.size() - begin_ > kMaxLineBytes) break;
    if (eof_) {
      if (begin_ == buffer_.size()) return false;
      line = std::string_view(buffer_).substr(begin_);
      begin_ = buffer_.size();
      unterminated_ = true;
      ++lineNumber_;
      return true;
    }
    // Refill: keep the unread tail, append one chunk after it.
    buffer_.erase(0, begin_);
    begin_ = 0;
    const std::size_t kept = buffer_.size();
    buffer_.resize(kept + kChunkBytes);
    in_.read(buffer_.data() + kept, static_cast<std::streamsize>(kChunkBytes));
    const auto got = static_cast<std::size_t>(in_.gcount());
    buffer_.resize(kept + got);
    if (in_.bad()) {
      error_ = makeError(ErrorKind::Io, file_.string() + ": read failed after byte " +
                                            std::to_string(bytesRead_ + got));
      return false;
    }
    if (bytesRead_ < kBinaryProbeBytes && got > 0) {
      const std::size_t probeEnd = std::min(got, static_cast<std::size_t>(kBinaryProbeBytes - bytesRead_));
      const void* nul = std::memchr(buffer_.data() + kept, '\0', probeEnd);
      if (nul != nullptr) {
        const auto offset = bytesRead_ + static_cast<std::uint64_t>(static_cast<const char*>(nul) -
                                                                    (buffer_.data() + kept));
        error_ = makeError(ErrorKind::Parse, file_.string() +
                                                 ": expected a text training log, found a binary file "
                                                 "(NUL byte at byte offset " +
                                                 std::to_string(offset) + ")");
        return false;
      }
    }
    bytesRead_ += got;
    if (got < kChunkBytes || in_.eof()) eof_ = true;
  }
  error_ = makeError(ErrorKind::Parse, file_.string() + ":" + std::to_string(lineNumber_ + 1) +
                                           ": expected a text line of at most " +
                                           std::to_string(kMaxLineBytes) +
                                           " bytes, found a longer one (a binary file?)");
  return false;
}

}  // namespace tb::logs::detail
