#include "tfrecord.hpp"

#include <array>
#include <cstdio>
#include <utility>

namespace tb::logs::detail {
namespace {

constexpr std::uint32_t kCastagnoli = 0x82F63B78U;  // 0x1EDC6F41 bit-reversed

using CrcTables = std::array<std::array<std::uint32_t, 256>, 8>;

// tables[0] is the byte-at-a-time table; tables[k][b] is the CRC of byte b
// followed by k zero bytes, which lets eight bytes be folded in at once.
constexpr CrcTables makeTables() {
  CrcTables tables{};
  for (std::uint32_t byte = 0; byte < 256; ++byte) {
    std::uint32_t crc = byte;
    for (int bit = 0; bit < 8; ++bit) {
      crc = (crc >> 1) ^ ((crc & 1U) != 0 ? kCastagnoli : 0U);
    }
    tables[0][byte] = crc;
  }
  for (std::size_t k = 1; k < 8; ++k) {
    for (std::size_t byte = 0; byte < 256; ++byte) {
      const std::uint32_t previous = tables[k - 1][byte];
      tables[k][byte] = (previous >> 8) ^ tables[0][previous & 0xFFU];
    }
  }
  return tables;
}

constexpr CrcTables kTables = makeTables();

// Assembled byte by byte so the result does not depend on the host's byte
// order or on alignment; compilers turn it into one load.
std::uint32_t loadLittle32(const unsigned char* p) noexcept {
  return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
         (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}

std::uint64_t loadLittle64(const unsigned char* p) noexcept {
  return static_cast<std::uint64_t>(loadLittle32(p)) |
         (static_cast<std::uint64_t>(loadLittle32(p + 4)) << 32);
}

constexpr std::size_t kHeaderBytes = 12;  // length + its masked CRC
constexpr std::size_t kFooterBytes = 4;   // the data's masked CRC
constexpr std::size_t kSkipChunkBytes = std::size_t{64} << 10;

std::string hex32(std::uint32_t value) {
  std::array<char, 11> text{};
  std::snprintf(text.data(), text.size(), "0x%08x", value);
  return text.data();
}

}  // namespace

std::uint32_t crc32cExtend(std::uint32_t crc, const unsigned char* data,
                           std::size_t size) noexcept {
  std::uint32_t state = ~crc;
  while (size >= 8) {
    const std::uint32_t low = state ^ loadLittle32(data);
    const std::uint32_t high = loadLittle32(data + 4);
    state = kTables[7][low & 0xFFU] ^ kTables[6][(low >> 8) & 0xFFU] ^
            kTables[5][(low >> 16) & 0xFFU] ^ kTables[4][low >> 24] ^ kTables[3][high & 0xFFU] ^
            kTables[2][(high >> 8) & 0xFFU] ^ kTables[1][(high >> 16) & 0xFFU] ^
            kTables[0][high >> 24];
    data += 8;
    size -= 8;
  }
  for (; size > 0; --size, ++data) {
    state = (state >> 8) ^ kTables[0][(state ^ *data) & 0xFFU];
  }
  return ~state;
}

std::uint32_t crc32c(std::string_view data) noexcept {
  return crc32cExtend(0, reinterpret_cast<const unsigned char*>(data.data()), data.size());
}

std::uint32_t crc32cBitwise(std::string_view data) noexcept {
  std::uint32_t state = 0xFFFFFFFFU;
  for (const char c : data) {
    state ^= static_cast<unsigned char>(c);
    for (int bit = 0; bit < 8; ++bit) {
      state = (state >> 1) ^ ((state & 1U) != 0 ? kCastagnoli : 0U);
    }
  }
  return ~state;
}

TfRecordReader::TfRecordReader(std::istream& in, std::string origin)
    : TfRecordReader(in, std::move(origin), Limits{}) {}

TfRecordReader::TfRecordReader(std::istream& in, std::string origin, Limits limits)
    : in_(in), origin_(std::move(origin)), limits_(limits) {}

bool TfRecordReader::read(char* into, std::size_t size, std::size_t& got) {
  in_.read(into, static_cast<std::streamsize>(size));
  got = static_cast<std::size_t>(in_.gcount());
  offset_ += got;
  if (in_.bad()) {
    fail(ErrorKind::Io, origin_ + ": byte " + std::to_string(offset_) + ": reading failed");
    return false;
  }
  return true;
}

TfRecordReader::Next TfRecordReader::fail(ErrorKind kind, std::string message) {
  error_ = makeError(kind, std::move(message));
  done_ = Next::Failed;
  return Next::Failed;
}

TfRecordReader::Next TfRecordReader::checkData(std::uint32_t computed, const char* footer) {
  const std::uint32_t stored = loadLittle32(reinterpret_cast<const unsigned char*>(footer));
  if (stored != maskCrc(computed)) {
    return fail(ErrorKind::Parse, origin_ + ": byte " + std::to_string(recordOffset_) +
                                      ": expected the record data's masked CRC-32C " +
                                      hex32(maskCrc(computed)) + ", found " + hex32(stored) +
                                      " (a corrupt record)");
  }
  ++records_;
  return Next::Record;
}

TfRecordReader::Next TfRecordReader::skip(std::uint64_t length) {
  // Streamed through one chunk so a record of any kept-out size costs 64 KiB.
  std::array<char, kSkipChunkBytes> chunk{};
  std::uint32_t crc = 0;
  std::uint64_t left = length;
  while (left > 0) {
    const std::size_t want = left < chunk.size() ? static_cast<std::size_t>(left) : chunk.size();
    std::size_t got = 0;
    if (!read(chunk.data(), want, got)) return Next::Failed;
    crc = crc32cExtend(crc, reinterpret_cast<const unsigned char*>(chunk.data()), got);
    if (got < want) {
      done_ = Next::Truncated;
      return Next::Truncated;
    }
    left -= got;
  }
  std::array<char, kFooterBytes> footer{};
  std::size_t got = 0;
  if (!read(footer.data(), footer.size(), got)) return Next::Failed;
  if (got < footer.size()) {
    done_ = Next::Truncated;
    return Next::Truncated;
  }
  if (checkData(crc, footer.data()) == Next::Failed) return Next::Failed;
  return Next::Skipped;
}

TfRecordReader::Next TfRecordReader::next(std::string& data) {
  if (done_) return *done_;
  recordOffset_ = offset_;

  std::array<char, kHeaderBytes> header{};
  std::size_t got = 0;
  if (!read(header.data(), header.size(), got)) return Next::Failed;
  if (got == 0) {
    done_ = Next::End;
    return Next::End;
  }
  if (got < header.size()) {
    done_ = Next::Truncated;
    return Next::Truncated;
  }
  const auto* bytes = reinterpret_cast<const unsigned char*>(header.data());
  const std::uint32_t lengthCrc = crc32cExtend(0, bytes, 8);
  const std::uint32_t storedLengthCrc = loadLittle32(bytes + 8);
  // The length is checked before it is believed: a flipped length bit must
  // not send the reader off allocating or skipping gigabytes.
  if (storedLengthCrc != maskCrc(lengthCrc)) {
    return fail(ErrorKind::Parse, origin_ + ": byte " + std::to_string(recordOffset_) +
                                      ": expected the record length's masked CRC-32C " +
                                      hex32(maskCrc(lengthCrc)) + ", found " +
                                      hex32(storedLengthCrc) + " (a corrupt record)");
  }
  const std::uint64_t length = loadLittle64(bytes);
  if (length > limits_.maxRecordBytes) {
    return fail(ErrorKind::Parse, origin_ + ": byte " + std::to_string(recordOffset_) +
                                      ": expected a record of at most " +
                                      std::to_string(limits_.maxRecordBytes) + " bytes, found " +
                                      std::to_string(length));
  }
  if (length > limits_.maxKeptBytes) return skip(length);

  data.resize(static_cast<std::size_t>(length));
  if (!read(data.data(), data.size(), got)) return Next::Failed;
  if (got < data.size()) {
    done_ = Next::Truncated;
    return Next::Truncated;
  }
  std::array<char, kFooterBytes> footer{};
  if (!read(footer.data(), footer.size(), got)) return Next::Failed;
  if (got < footer.size()) {
    done_ = Next::Truncated;
    return Next::Truncated;
  }
  return checkData(crc32c(data), footer.data());
}

}  // namespace tb::logs::detail
