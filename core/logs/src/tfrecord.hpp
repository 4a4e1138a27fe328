// TFRecord framing, the container of TensorBoard event files (tensorflow
// core/lib/io/record_writer.cc): each record is
//   uint64 length (little-endian) | uint32 masked CRC-32C of those 8 bytes |
//   length bytes of data          | uint32 masked CRC-32C of the data
// The reader checks both CRCs, so a flipped bit anywhere is caught, and reads
// through the stream's fixed buffer, one record at a time, so memory stays
// flat however long the file is. Free of protobuf: the framing knows nothing
// of what a record holds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <string_view>

#include "tb/common/expected.hpp"

namespace tb::logs::detail {

/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) of `data`, slicing
/// by 8 bytes. crc32c("123456789") == 0xE3069283.
[[nodiscard]] std::uint32_t crc32c(std::string_view data) noexcept;
/// Continues a CRC-32C: crc32cExtend(crc32c(a), b) == crc32c(a + b).
[[nodiscard]] std::uint32_t crc32cExtend(std::uint32_t crc, const unsigned char* data,
                                         std::size_t size) noexcept;
/// The same CRC one bit at a time: the definition, which the tests hold the
/// fast one against.
[[nodiscard]] std::uint32_t crc32cBitwise(std::string_view data) noexcept;

/// TFRecord stores CRCs masked (rotated right by 15, plus a constant), so
/// that a CRC of data that itself holds CRCs does not degenerate.
[[nodiscard]] constexpr std::uint32_t maskCrc(std::uint32_t crc) noexcept {
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8U;
}
[[nodiscard]] constexpr std::uint32_t unmaskCrc(std::uint32_t masked) noexcept {
  const std::uint32_t rotated = masked - 0xa282ead8U;
  return (rotated >> 17) | (rotated << 15);
}

/// Reads the records of one TFRecord stream in order.
class TfRecordReader {
 public:
  struct Limits {
    /// A longer record is refused: no writer makes one, and a length that big
    /// is a corrupt file whose length CRC happened to match.
    std::uint64_t maxRecordBytes = std::uint64_t{256} << 20;
    /// Records up to this size are handed over; longer ones (graph defs,
    /// images: never a scalar) are CRC-checked while streamed past and
    /// skipped, so they never take their size in memory.
    std::uint64_t maxKeptBytes = std::uint64_t{16} << 20;
  };

  enum class Next : std::uint8_t {
    Record,     ///< `data` holds the next record
    Skipped,    ///< a record longer than maxKeptBytes, checked and passed over
    End,        ///< the stream ended at a record boundary
    Truncated,  ///< the stream ended inside a record (a writer still going, or killed)
    Failed,     ///< a bad CRC, a refused length or a read error: see error()
  };

  /// `origin` names the stream in errors (the file's path).
  TfRecordReader(std::istream& in, std::string origin);
  TfRecordReader(std::istream& in, std::string origin, Limits limits);

  /// The stream was positioned at `offset` of its file, the start of a
  /// record: offsets in errors and answers count from the file's start.
  void resumeAt(std::uint64_t offset) noexcept { offset_ = offset; }

  /// The next record into `data` (its capacity is reused). After End,
  /// Truncated or Failed every further call answers the same.
  [[nodiscard]] Next next(std::string& data);

  /// Byte offset of the record last returned, skipped, cut off or refused.
  [[nodiscard]] std::uint64_t recordOffset() const noexcept { return recordOffset_; }
  /// Bytes consumed so far.
  [[nodiscard]] std::uint64_t offset() const noexcept { return offset_; }
  /// Records handed over or skipped so far.
  [[nodiscard]] std::uint64_t records() const noexcept { return records_; }
  /// Set after Failed: kind Parse (CRC, length) or Io (the read failed).
  [[nodiscard]] const std::optional<Error>& error() const noexcept { return error_; }

 private:
  /// Reads up to `size` bytes; false (with error_ set) on a read error.
  bool read(char* into, std::size_t size, std::size_t& got);
  Next fail(ErrorKind kind, std::string message);
  Next checkData(std::uint32_t computed, const char* footer);
  Next skip(std::uint64_t length);

  std::istream& in_;
  std::string origin_;
  Limits limits_;
  std::uint64_t offset_ = 0;
  std::uint64_t recordOffset_ = 0;
  std::uint64_t records_ = 0;
  std::optional<Next> done_;
  std::optional<Error> error_;
};

}  // namespace tb::logs::detail
