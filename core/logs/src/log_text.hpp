// Text rules every line-oriented log shares: colours and launcher prefixes
// come off before a line is matched, and numbers are read the way the
// frameworks print them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tb/common/expected.hpp"

namespace tb::logs::detail {

/// The character classes of a log line, the same for every format: ASCII
/// only, whatever the locale, since the frameworks print their keys and
/// numbers in ASCII.
inline bool isBlank(char c) { return c == ' ' || c == '\t'; }
inline bool isDigit(char c) { return c >= '0' && c <= '9'; }
inline bool isLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/// `text` without its leading blanks.
inline std::string_view skipBlanks(std::string_view text) {
  while (!text.empty() && isBlank(text.front())) text.remove_prefix(1);
  return text;
}

/// `text` without a leading UTF-8 byte order mark, which some writers put
/// before the first line of a CSV or JSON file and which is no part of it.
inline std::string_view withoutBom(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  return text;
}

/// The line without ANSI escapes (`\x1b[…m`, 24-bit colours included), a
/// trailing '\r', and the launcher prefixes that come before the payload:
/// `[rank0]:`, `[default0]:`, `0: ` / ` 0: ` (srun -l). Stacked prefixes all
/// come off. `scratch` holds the result when escapes had to be removed.
[[nodiscard]] std::string_view cleanLine(std::string_view line, std::string& scratch);

/// A number as a framework prints it: `1,234.5` (thousands separators),
/// `1.064275E+01`, `inf`, `-inf`, `nan`, `NaN`, `Infinity`, an optional
/// trailing `%` (kept as the number: 42% is 42). Leading and trailing blanks
/// are ignored; anything else left over makes it no number.
[[nodiscard]] std::optional<double> parseLogNumber(std::string_view text);

/// The importer's refusal of a line of a format that cannot be read:
/// `origin:line: what` (kind Parse, exit 2).
/// The hint for what a file showed of its run's validation, which is no
/// step record: "3 validation lines (validate step:) are not step records; "
/// + `timing` (how the format's times stand to it). Empty for none.
[[nodiscard]] std::optional<std::string> validationNote(std::int64_t count, std::string_view what,
                                                        std::string_view timing);

[[nodiscard]] Error lineError(std::string_view origin, std::uint64_t line, std::string_view what);

/// `text` in single quotes for a message: cut at 80 bytes (then "…"),
/// control bytes written as \xNN so a terminal shows them and is not
/// driven by them.
[[nodiscard]] std::string quotedExcerpt(std::string_view text);

/// lineError as `origin:line: expected …, found '…'`, `found` as
/// quotedExcerpt gives it.
[[nodiscard]] Error expectedError(std::string_view origin, std::uint64_t line,
                                  std::string_view expected, std::string_view found);

/// `key: value` fields split on `separator` (Megatron's " | "): each field's
/// key and value trimmed. A field without ':' is given with an empty value.
struct LogField {
  std::string_view key;
  std::string_view value;
};
template <class Visit>
void forEachField(std::string_view text, std::string_view separator, Visit&& visit);

}  // namespace tb::logs::detail

#include "log_text_inl.hpp"
