// A single pass over the text with the little YAML lexing the question needs:
// where a value starts (so a quote inside a plain scalar, echo "hi",x, is
// not taken for a quoted scalar), quoted scalars (\ escapes in double
// quotes, '' in single ones), comments, and the nesting of [ ] and { }.
#include "yaml_guard.hpp"

namespace tb::config::detail {

std::optional<int> strayFlowEntryLine(std::string_view yaml) {
  int line = 1;
  int depth = 0;            // open [ and { around this point
  bool valueStart = true;   // the next non-blank character starts a value
  bool afterNode = false;   // a quoted scalar or a flow collection just closed at depth 0
  char quote = 0;           // the quote of the scalar being read, 0 outside one
  bool comment = false;
  char previous = '\n';
  for (std::size_t i = 0; i < yaml.size(); ++i) {
    const char c = yaml[i];
    if (c == '\n') {
      ++line;
      comment = false;
      afterNode = false;
      valueStart = quote == 0;
      previous = c;
      continue;
    }
    if (comment) continue;
    if (quote != 0) {
      if (quote == '"' && c == '\\') {
        ++i;  // the escaped character, whatever it is
      } else if (c == quote) {
        if (quote == '\'' && i + 1 < yaml.size() && yaml[i + 1] == '\'') {
          ++i;  // '' is a quote inside a single-quoted scalar
        } else {
          quote = 0;
          afterNode = depth == 0;
          // yaml-cpp reads "a""b" as two scalars; so does this.
          valueStart = true;
        }
      }
      previous = c;
      continue;
    }
    const bool blank = c == ' ' || c == '\t' || c == '\r';
    if (blank) {
      previous = c;
      continue;  // a node may be followed by blanks before the ','
    }
    if (c == '#' && (previous == ' ' || previous == '\t' || previous == '\n')) {
      comment = true;
      continue;
    }
    const bool startsValue = valueStart;
    // A plain scalar cannot start with ',' either: outside [ ] and { } a ','
    // is a scalar's own character only in the middle of one.
    if (c == ',' && depth == 0 && (afterNode || startsValue)) return line;
    // A tag, anchor or alias (!t, &a, *a) ends at a blank or a flow
    // indicator; the node itself may follow it, so a value starts again.
    if (startsValue && (c == '!' || c == '&' || c == '*')) {
      while (i + 1 < yaml.size() && yaml[i + 1] != ' ' && yaml[i + 1] != '\t' &&
             yaml[i + 1] != '\n' && yaml[i + 1] != '\r' && yaml[i + 1] != ',' &&
             yaml[i + 1] != '[' && yaml[i + 1] != ']' && yaml[i + 1] != '{' &&
             yaml[i + 1] != '}') {
        ++i;
      }
      valueStart = true;
      afterNode = false;
      previous = yaml[i];
      continue;
    }
    valueStart = false;
    afterNode = false;
    switch (c) {
      case '"':
      case '\'':
        if (startsValue) quote = c;
        break;
      case '[':
      case '{':
        ++depth;
        valueStart = true;
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        afterNode = depth == 0;
        valueStart = true;
        break;
      case ',':
        valueStart = depth > 0;
        break;
      case ':':
      case '-':
        // "key: value" and "- item": a value starts after them.
        valueStart = i + 1 == yaml.size() || yaml[i + 1] == ' ' || yaml[i + 1] == '\t' ||
                     yaml[i + 1] == '\n' || (depth > 0 && c == ':');
        break;
      default:
        break;
    }
    previous = c;
  }
  return std::nullopt;
}

std::optional<std::pair<int, unsigned char>> controlCharacter(std::string_view yaml) {
  int line = 1;
  for (const char c : yaml) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') ++line;
    if ((byte < 0x20 && c != '\t' && c != '\n' && c != '\r') || byte == 0x7F) {
      return std::pair{line, byte};
    }
  }
  return std::nullopt;
}

}  // namespace tb::config::detail
