// The text rules every line format shares. Escapes and launcher prefixes come
// off before any format looks at a line, so a parser matches the payload the
// framework printed whichever launcher or terminal stood in between; numbers
// are read the way Python prints them (`{:,}`, `{:.6E}`, `inf`, `nan`) and JSON
// writes them (`NaN`, `Infinity`). Both run on every line of a
// multi-gigabyte log, so neither allocates unless an escape must come out.
#include "log_text.hpp"

#include <array>
#include <charconv>
#include <cstdlib>
#include <limits>

#include "tb/common/text.hpp"

namespace tb::logs::detail {
namespace {

constexpr char kEscape = '\x1b';

// ECMA-48: ESC '[' parameter bytes (0x30–0x3F: digits, ';' — which covers
// `38;2;R;G;B`), intermediate bytes (0x20–0x2F), one final byte (0x40–0x7E).
// ESC followed by anything else is a two-byte sequence (ESC '(' 'B' resets
// the charset and takes three). An escape cut off by the end of the line goes
// with it.
std::size_t escapeLength(std::string_view text, std::size_t at) {
  std::size_t i = at + 1;
  if (i >= text.size()) return text.size() - at;
  if (text[i] == '[') {
    ++i;
    while (i < text.size() && text[i] >= 0x30 && text[i] <= 0x3F) ++i;
    while (i < text.size() && text[i] >= 0x20 && text[i] <= 0x2F) ++i;
    if (i < text.size() && text[i] >= 0x40 && text[i] <= 0x7E) ++i;
    return i - at;
  }
  if ((text[i] == '(' || text[i] == ')') && i + 1 < text.size()) return 3;
  return 2;
}

std::string_view withoutEscapes(std::string_view line, std::string& scratch) {
  if (line.find(kEscape) == std::string_view::npos) return line;
  scratch.clear();
  scratch.reserve(line.size());
  std::size_t i = 0;
  while (i < line.size()) {
    const std::size_t next = line.find(kEscape, i);
    if (next == std::string_view::npos) {
      scratch.append(line.substr(i));
      break;
    }
    scratch.append(line.substr(i, next - i));
    i = next + escapeLength(line, next);
  }
  return scratch;
}

// torchrun's `--tee`/`--role` prefix `[<role><rank>]:` — `[rank0]:` from
// torchtitan's run_train.sh, `[default0]:` with the default role. The role
// is a word and the rank its trailing digits, so `[titan]`, `[Rank 0]` (a
// DeepSpeed payload) and `[2024-09-03 15:54:54]` (Megatron's time stamp) are
// left alone.
std::size_t torchrunPrefixLength(std::string_view text) {
  if (text.empty() || text[0] != '[') return 0;
  std::size_t i = 1;
  while (i < text.size() && (isLetter(text[i]) || text[i] == '_')) ++i;
  if (i == 1) return 0;
  const std::size_t digitsStart = i;
  while (i < text.size() && isDigit(text[i])) ++i;
  if (i == digitsStart || i - digitsStart > 6) return 0;
  if (i + 1 >= text.size() || text[i] != ']' || text[i + 1] != ':') return 0;
  return i + 2;
}

// `srun -l` puts the task number before every line: `0: `, right-aligned to
// the widest number (` 0: ` once there are ten tasks or more). Blanks before
// it are part of the prefix; the one space after it is too.
std::size_t srunPrefixLength(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() && isBlank(text[i])) ++i;
  const std::size_t digitsStart = i;
  while (i < text.size() && isDigit(text[i])) ++i;
  if (i == digitsStart || i - digitsStart > 6) return 0;
  if (i + 1 >= text.size() || text[i] != ':' || text[i + 1] != ' ') return 0;
  return i + 2;
}

bool equalsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (x != b[i]) return false;
  }
  return true;
}

// `1,234,567.5`: a first group of one to three digits, then groups of
// exactly three. Anything else with a comma ("1,2", a CSV pair) is no number,
// so a misplaced comma never becomes a silently different value.
bool validThousandsGrouping(std::string_view integerPart) {
  const std::size_t firstComma = integerPart.find(',');
  if (firstComma == std::string_view::npos) return true;
  if (firstComma == 0 || firstComma > 3) return false;
  std::size_t i = firstComma;
  while (i < integerPart.size()) {
    if (integerPart[i] != ',' || i + 4 > integerPart.size()) return false;
    for (std::size_t k = i + 1; k < i + 4; ++k)
      if (!isDigit(integerPart[k])) return false;
    i += 4;
  }
  return true;
}

}  // namespace

std::string_view cleanLine(std::string_view line, std::string& scratch) {
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.remove_suffix(1);
  line = withoutEscapes(line, scratch);
  // A carriage return that an escape stood behind (`…\x1b[0m\r`) shows up
  // only now.
  while (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  // Launchers stack (`srun -l` starting torchrun: `0: [rank0]:[titan] …`);
  // blanks between two prefixes belong to them, the payload's own leading
  // blanks (Megatron prints ` [date] iteration …`) stay.
  while (true) {
    std::size_t blanks = 0;
    while (blanks < line.size() && isBlank(line[blanks])) ++blanks;
    const std::string_view rest = line.substr(blanks);
    if (const std::size_t n = torchrunPrefixLength(rest); n > 0) {
      line = rest.substr(n);
      continue;
    }
    if (const std::size_t n = srunPrefixLength(line); n > 0) {
      line = line.substr(n);
      continue;
    }
    return line;
  }
}

std::optional<double> parseLogNumber(std::string_view text) {
  text = trim(text);
  if (!text.empty() && text.back() == '%') text = trim(text.substr(0, text.size() - 1));
  if (text.empty()) return std::nullopt;

  bool negative = false;
  if (text.front() == '+' || text.front() == '-') {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (text.empty()) return std::nullopt;
  const double sign = negative ? -1.0 : 1.0;
  if (equalsIgnoringCase(text, "inf") || equalsIgnoringCase(text, "infinity"))
    return sign * std::numeric_limits<double>::infinity();
  if (equalsIgnoringCase(text, "nan")) return std::numeric_limits<double>::quiet_NaN();
  if (!isDigit(text.front()) && text.front() != '.') return std::nullopt;

  // Digits go through a fixed buffer without their separators: from_chars
  // knows no thousands separator, and no printed number is 63 characters.
  std::array<char, 64> digits{};
  std::size_t length = 0;
  const std::size_t integerEnd = text.find_first_not_of("0123456789,");
  const std::string_view integerPart = text.substr(0, integerEnd);
  if (!validThousandsGrouping(integerPart)) return std::nullopt;
  for (const char c : text) {
    if (c == ',') continue;
    if (length == digits.size()) return std::nullopt;
    digits[length++] = c;
  }
  double value = 0.0;
  const char* end = digits.data() + length;
  const auto [stop, error] = std::from_chars(digits.data(), end, value, std::chars_format::general);
  if (error != std::errc{} || stop != end) {
    // from_chars reports out of range for 1e999 rather than giving inf;
    // strtod's answer (±inf, or 0 for an underflow) is the printed value.
    if (error == std::errc::result_out_of_range && stop == end) {
      const std::string copy(digits.data(), length);
      return sign * std::strtod(copy.c_str(), nullptr);
    }
    return std::nullopt;
  }
  return sign * value;
}

std::optional<std::string> validationNote(std::int64_t count, std::string_view what,
                                          std::string_view timing) {
  if (count <= 0) return std::nullopt;
  return std::to_string(count) + " validation " + (count == 1 ? "line" : "lines") + " (" +
         std::string(what) + ") " + (count == 1 ? "is" : "are") + " not step records; " +
         std::string(timing);
}

Error lineError(std::string_view origin, std::uint64_t line, std::string_view what) {
  return makeError(ErrorKind::Parse,
                   std::string(origin) + ":" + std::to_string(line) + ": " + std::string(what));
}

std::string quotedExcerpt(std::string_view text) {
  constexpr std::size_t kQuoteLimit = 80;
  std::string shown = "'";
  for (const char c : text.substr(0, kQuoteLimit)) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      shown += "\\x";
      shown += kHex[byte >> 4];
      shown += kHex[byte & 0xf];
    } else {
      shown += c;
    }
  }
  if (text.size() > kQuoteLimit) shown += "…";
  return shown + "'";
}

Error expectedError(std::string_view origin, std::uint64_t line, std::string_view expected,
                    std::string_view found) {
  return lineError(origin, line,
                   "expected " + std::string(expected) + ", found " + quotedExcerpt(found));
}

}  // namespace tb::logs::detail
