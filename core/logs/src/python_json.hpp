// JSON as Python's json.dumps writes it. Its default allow_nan=True writes
// NaN, Infinity and -Infinity as bare literals, which strict JSON (and
// nlohmann's parser) refuses; the Trainer's trainer_state.json, DLLogger's
// `DLLL {…}` lines and mlperf_logging's `:::MLLOG {…}` lines all go through
// json.dumps, so a diverged loss or an overflowed grad norm shows up as one.
//
// How they are read: before nlohmann sees the text, each such literal outside
// a string is overwritten in place by a string of the same length — NaN by
// "N", Infinity by "I" and five blanks, -Infinity by "-I" and five blanks —
// and jsonNumber() reads those strings back as the numbers. Keeping the
// length means the byte offsets in nlohmann's errors are offsets into the
// original file. (nlohmann's SAX interface does not help here: its lexer
// rejects the literals before any SAX event.)
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <istream>
#include <limits>
#include <optional>
#include <streambuf>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace tb::logs::detail {

/// Where a scan of JSON text stands between two blocks of it.
struct PythonLiteralScan {
  bool inString = false;
  bool escaped = false;
};

/// Rewrites Python's literals in data[0, size) in place and returns how many
/// leading bytes are final. That is fewer than `size` only when the block
/// ends inside what may be a literal and more text follows (`atEnd` false):
/// the caller passes the rest again, with what follows, next time.
inline std::size_t rewritePythonLiterals(char* data, std::size_t size, bool atEnd,
                                         PythonLiteralScan& scan) {
  static constexpr std::string_view kNan = "NaN";
  static constexpr std::string_view kInf = "Infinity";
  static constexpr std::string_view kNegInf = "-Infinity";
  static constexpr std::string_view kNanString = "\"N\"";
  static constexpr std::string_view kInfString = "\"I\"     ";
  static constexpr std::string_view kNegInfString = "\"-I\"     ";
  static_assert(kNan.size() == kNanString.size() && kInf.size() == kInfString.size() &&
                kNegInf.size() == kNegInfString.size());

  std::size_t i = 0;
  while (i < size) {
    const char c = data[i];
    if (scan.inString) {
      if (scan.escaped) {
        scan.escaped = false;
      } else if (c == '\\') {
        scan.escaped = true;
      } else if (c == '"') {
        scan.inString = false;
      }
      ++i;
      continue;
    }
    std::string_view literal;
    std::string_view replacement;
    if (c == '"') {
      scan.inString = true;
      ++i;
      continue;
    }
    if (c == 'N') {
      literal = kNan;
      replacement = kNanString;
    } else if (c == 'I') {
      literal = kInf;
      replacement = kInfString;
    } else if (c == '-') {
      literal = kNegInf;
      replacement = kNegInfString;
    } else {
      ++i;
      continue;
    }
    const std::size_t available = std::min(size - i, literal.size());
    const std::string_view seen(data + i, available);
    if (seen != literal.substr(0, available)) {
      ++i;  // a number's minus sign, or text the parser will refuse itself
      continue;
    }
    if (available < literal.size()) {
      if (!atEnd) return i;  // the literal may go on in the next block
      ++i;
      continue;
    }
    std::memcpy(data + i, replacement.data(), replacement.size());
    i += literal.size();
  }
  return size;
}

/// A stream buffer over `in` that hands nlohmann the text with Python's
/// literals rewritten, block by block, so a long trainer_state.json is parsed
/// without holding the file.
class PythonJsonStreamBuf final : public std::streambuf {
 public:
  explicit PythonJsonStreamBuf(std::istream& in) : in_(in) {}

  /// The offset in the file of the next byte the parser will read.
  [[nodiscard]] std::uint64_t offset() const {
    return delivered_ + static_cast<std::uint64_t>(gptr() - eback());
  }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    delivered_ += static_cast<std::uint64_t>(egptr() - eback());
    const std::size_t kept = keptEnd_ - keptBegin_;
    std::memmove(buffer_.data(), buffer_.data() + keptBegin_, kept);
    std::size_t size = kept;
    std::size_t ready = 0;
    while (ready == 0) {
      if (!atEnd_) {
        const std::size_t wanted = buffer_.size() - size;
        in_.read(buffer_.data() + size, static_cast<std::streamsize>(wanted));
        const auto got = static_cast<std::size_t>(in_.gcount());
        size += got;
        if (got < wanted) atEnd_ = true;
      }
      if (size == 0) break;
      ready = rewritePythonLiterals(buffer_.data(), size, atEnd_, scan_);
    }
    keptBegin_ = ready;
    keptEnd_ = size;
    setg(buffer_.data(), buffer_.data(), buffer_.data() + ready);
    if (ready == 0) return traits_type::eof();
    return traits_type::to_int_type(buffer_[0]);
  }

 private:
  std::istream& in_;
  std::array<char, 64 * 1024> buffer_{};
  std::size_t keptBegin_ = 0;  ///< bytes read but not yet final: [keptBegin_, keptEnd_)
  std::size_t keptEnd_ = 0;
  std::uint64_t delivered_ = 0;
  bool atEnd_ = false;
  PythonLiteralScan scan_;
};

/// nlohmann's message without its "[json.exception.parse_error.101] parse
/// error at line L, column C: " prefix (we say where ourselves).
inline std::string jsonErrorReason(std::string_view what) {
  if (const auto at = what.find("parse error"); at != std::string_view::npos) {
    if (const auto colon = what.find(": ", at); colon != std::string_view::npos) {
      return std::string(what.substr(colon + 2));
    }
  }
  return std::string(what);
}

/// Why one line's JSON could not be read: the 0-based byte of the text where
/// the parser stopped, and nlohmann's reason.
struct JsonTextError {
  std::size_t byte = 0;
  std::string reason;
};

/// One line's JSON, as Python writes it.
inline std::optional<nlohmann::json> parsePythonJson(std::string_view text, JsonTextError& error) {
  std::string strict(text);
  PythonLiteralScan scan;
  rewritePythonLiterals(strict.data(), strict.size(), true, scan);
  try {
    return nlohmann::json::parse(strict);
  } catch (const nlohmann::json::parse_error& e) {
    error.byte = e.byte > 0 ? e.byte - 1 : 0;
    error.reason = jsonErrorReason(e.what());
    return std::nullopt;
  }
}

/// A JSON value read as a number into `out`: a number as it is, the strings
/// the rewrite above left for NaN/Infinity/-Infinity as those, null (Python's
/// None) as no value. Returns false for any other kind of value.
inline bool jsonNumber(const nlohmann::json& value, std::optional<double>& out) {
  if (value.is_number()) {
    out = value.get<double>();
    return true;
  }
  if (value.is_null()) {
    out.reset();
    return true;
  }
  if (value.is_string()) {
    const auto& text = value.get_ref<const std::string&>();
    if (text == "N") {
      out = std::numeric_limits<double>::quiet_NaN();
      return true;
    }
    if (text == "I") {
      out = std::numeric_limits<double>::infinity();
      return true;
    }
    if (text == "-I") {
      out = -std::numeric_limits<double>::infinity();
      return true;
    }
  }
  return false;
}

/// A JSON value read as a whole number (a step, a batch): an integer, or a
/// float with no fraction (Python writes 99.0 for a float step).
inline std::optional<std::int64_t> jsonInteger(const nlohmann::json& value) {
  if (value.is_number_integer()) return value.get<std::int64_t>();
  if (value.is_number_unsigned()) {
    const auto unsignedValue = value.get<std::uint64_t>();
    if (unsignedValue > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return std::nullopt;
    }
    return static_cast<std::int64_t>(unsignedValue);
  }
  if (value.is_number_float()) {
    const double number = value.get<double>();
    if (std::isfinite(number) && number == std::floor(number) && std::fabs(number) < 9.0e15) {
      return static_cast<std::int64_t>(number);
    }
  }
  return std::nullopt;
}

/// A short, one-line rendering of a value for an error message.
inline std::string jsonSnippet(const nlohmann::json& value) {
  // `replace`: a string with bytes that are not UTF-8 must not throw here.
  std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  constexpr std::size_t kMax = 60;
  if (text.size() > kMax) text = text.substr(0, kMax) + "…";
  return text;
}

}  // namespace tb::logs::detail
