// Text rules of the Python console logs Megatron-LM and DeepSpeed write
// (megatron.cpp, deepspeed.cpp): the logger's bracketed prefixes, the dotted
// `name ....... value` dumps of arguments and configs, whole numbers, and the
// importer's parse-error message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tb/common/expected.hpp"
#include "log_text.hpp"
#include "tb/common/text.hpp"

namespace tb::logs::detail::console {

/// The payload after the bracketed groups loggers put in front of it:
/// `[2024-09-03 15:54:54]`, `[Rank 0]`, DeepSpeed's `[date] [INFO]
/// [timer.py:215:stop]`, the AMD Primus fork's `[date][rank-63/64][INFO ]
/// [--------trainer.py:2382] :`. Launcher prefixes are cleanLine's.
inline std::string_view afterBracketPrefixes(std::string_view text) {
  for (;;) {
    text = skipBlanks(text);
    if (text.empty()) return text;
    if (text.front() == '[') {
      const auto close = text.find(']');
      if (close == std::string_view::npos) return text;
      text.remove_prefix(close + 1);
    } else if (text.front() == ':') {
      text.remove_prefix(1);
    } else {
      return text;
    }
  }
}

/// Leading digits as a whole number (at most 18 of them); `text` keeps what
/// follows them.
inline std::optional<std::int64_t> takeDigits(std::string_view& text) {
  std::size_t n = 0;
  while (n < text.size() && isDigit(text[n])) ++n;
  if (n == 0 || n > 18) return std::nullopt;
  std::int64_t value = 0;
  for (std::size_t i = 0; i < n; ++i) value = value * 10 + (text[i] - '0');
  text.remove_prefix(n);
  return value;
}

/// `  name ........ value`: Megatron's `_print_args` pads names with dots to
/// 48 characters, DeepSpeed's config print to 29. The name and the value, or
/// false; a name as long as the padding has no dots and is not read.
inline bool readDotted(std::string_view line, std::string_view& name, std::string_view& value) {
  const std::string_view text = trim(line);
  const auto space = text.find(' ');
  if (space == std::string_view::npos) return false;
  name = text.substr(0, space);
  std::string_view rest = skipBlanks(text.substr(space));
  if (rest.empty() || rest.front() != '.') return false;
  while (!rest.empty() && rest.front() == '.') rest.remove_prefix(1);
  value = trim(rest);
  return !value.empty();
}

}  // namespace tb::logs::detail::console
