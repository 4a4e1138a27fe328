// Lines come out of one buffer that is refilled a chunk at a time: the unread
// tail moves to the front and the next chunk is appended, so the buffer never
// holds more than the longest line plus one chunk, whatever the file's size.
//
// Binary files: a NUL byte in the first 4 KiB refuses the file, the test grep
// and git use. No training log prints a NUL, while every binary container
// (event files, checkpoints, archives, safetensors) has one up front. Bytes
// that are not UTF-8 are not refused: logs carry Latin-1 host names and
// multi-byte characters cut by a truncation, and the parsers only match
// ASCII keys.
//
// Line ends: "\n", "\r\n", and a lone '\r' — tqdm, the Trainer's and
// Lightning's progress bars, redraws itself after a '\r', so one physical
// line holds many bars and, often, another logger's line after the last one.
// A '\r' that ends the buffer waits for the next chunk before it is known
// whether a '\n' follows it.
//
// Long lines: a line over kMaxLineBytes is skipped and counted, like any
// other program's line in a training log: its bytes are dropped as they
// arrive, so the buffer stays bounded. (A binary file without an early NUL
// then reads as lines no format claims.)
//
// Following: the end of the file is only where the writer is now. The held
// last line stays in the buffer, the stream's end-of-file state is cleared
// on resume(), and the next read appends what was written since; the same
// open stream follows the same file (a replaced file is the follower's to
// notice, by its inode).
#include "line_reader.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
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

Expected<LineReader> LineReader::openFollowing(const std::filesystem::path& file) {
  auto reader = open(file);
  if (reader) reader->following_ = true;
  return reader;
}

bool LineReader::resume() {
  if (error_) return false;
  if (eof_) {
    in_.clear();
    eof_ = false;
  }
  return true;
}

bool LineReader::next(std::string_view& line) {
  if (error_) return false;
  while (true) {
    const char* const unreadStart = buffer_.data() + begin_;
    const std::size_t unread = buffer_.size() - begin_;
    const auto* newline = static_cast<const char*>(std::memchr(unreadStart, '\n', unread));
    const std::size_t newlineAt =
        newline != nullptr ? static_cast<std::size_t>(newline - unreadStart) : unread;
    const auto* carriage = static_cast<const char*>(std::memchr(unreadStart, '\r', newlineAt));
    std::optional<std::size_t> lineLength;  // where this line ends, if it is known to
    std::size_t endLength = 1;
    bool pendingCarriage = false;  // a '\r' ending the buffer: the next chunk says whether "\r\n"
    if (carriage != nullptr) {
      const auto at = static_cast<std::size_t>(carriage - unreadStart);
      if (at + 1 < unread) {
        lineLength = at;
        if (unreadStart[at + 1] == '\n') endLength = 2;
      } else if (eof_ && !following_) {
        lineLength = at;
      } else {
        pendingCarriage = true;
      }
    } else if (newline != nullptr) {
      lineLength = newlineAt;
    }

    if (lineLength) {
      const std::size_t length = *lineLength;
      begin_ += length + endLength;
      ++lineNumber_;
      if (skipping_ || length > kMaxLineBytes) {
        skipping_ = false;
        ++skippedLongLines_;
        continue;
      }
      line = std::string_view(buffer_).substr(begin_ - length - endLength, length);
      return true;
    }
    if (eof_ && following_) {
      // The writer has not ended this line yet: wait for it. A long one is
      // dropped as it comes, and counted when its end arrives.
      if (unread - (pendingCarriage ? 1 : 0) > kMaxLineBytes) skipping_ = true;
      if (skipping_) {
        buffer_.erase(0, buffer_.size() - (pendingCarriage ? 1 : 0));
        begin_ = 0;
      }
      return false;
    }
    if (eof_) {
      if (skipping_ || unread > kMaxLineBytes) {
        // A long line the file ends in, cut: skipped, and the file ended mid-line.
        skipping_ = false;
        begin_ = buffer_.size();
        ++skippedLongLines_;
        ++lineNumber_;
        unterminated_ = true;
        return false;
      }
      if (begin_ == buffer_.size()) return false;
      line = std::string_view(buffer_).substr(begin_);
      begin_ = buffer_.size();
      unterminated_ = true;
      ++lineNumber_;
      return true;
    }
    if (unread - (pendingCarriage ? 1 : 0) > kMaxLineBytes) skipping_ = true;
    if (skipping_) {
      // Drop what arrived of the long line; keep a last '\r', its end.
      begin_ = buffer_.size() - (pendingCarriage ? 1 : 0);
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
      const std::size_t probeEnd =
          std::min(got, static_cast<std::size_t>(kBinaryProbeBytes - bytesRead_));
      const void* nul = std::memchr(buffer_.data() + kept, '\0', probeEnd);
      if (nul != nullptr) {
        const auto offset = bytesRead_ + static_cast<std::uint64_t>(static_cast<const char*>(nul) -
                                                                    (buffer_.data() + kept));
        error_ =
            makeError(ErrorKind::Parse, file_.string() +
                                            ": expected a text training log, found a binary file "
                                            "(NUL byte at byte offset " +
                                            std::to_string(offset) + ")");
        return false;
      }
    }
    bytesRead_ += got;
    if (got < kChunkBytes || in_.eof()) eof_ = true;
  }
}

}  // namespace tb::logs::detail
