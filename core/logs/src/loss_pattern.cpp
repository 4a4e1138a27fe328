// See tb/logs/loss_pattern.hpp.
#include "tb/logs/loss_pattern.hpp"

#include <vector>

namespace tb::logs {
namespace {

Error bad(std::string_view text, const std::string& why) {
  return makeError(ErrorKind::BadInput, "--loss-pattern '" + std::string(text) + "': " + why);
}

/// The pattern with `(?<step>` made a plain group; the 1-based index of
/// every capturing group in order, and which one was `step`.
struct Groups {
  std::string rewritten;
  std::size_t count = 0;
  std::optional<std::size_t> step;
  std::string otherName;  ///< a named group that is not `step`
};

Groups scanGroups(std::string_view text) {
  Groups groups;
  bool inClass = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size()) {
      groups.rewritten += text.substr(i, 2);
      ++i;
      continue;
    }
    if (inClass) {
      inClass = c != ']';
    } else if (c == '[') {
      inClass = true;
    } else if (c == '(') {
      if (text.substr(i).starts_with("(?<step>")) {
        groups.step = ++groups.count;
        groups.rewritten += '(';
        i += std::string_view("(?<step>").size() - 1;
        continue;
      }
      if (text.substr(i).starts_with("(?<") && !text.substr(i).starts_with("(?<=") &&
          !text.substr(i).starts_with("(?<!")) {
        const auto close = text.find('>', i);
        groups.otherName = std::string(text.substr(
            i + 3, close == std::string_view::npos ? std::string_view::npos : close - i - 3));
      } else if (!text.substr(i).starts_with("(?")) {
        ++groups.count;
      }
    }
    groups.rewritten += c;
  }
  return groups;
}

}  // namespace

Expected<LossPattern> LossPattern::compile(std::string_view text) {
  if (text.empty()) return bad(text, "empty; give a regular expression with a group for the loss");
  const Groups groups = scanGroups(text);
  if (!groups.otherName.empty()) {
    return bad(text, "the named group '" + groups.otherName +
                         "' is not one this reads: only (?<step>…) is named, the loss is the "
                         "first other group");
  }
  LossPattern pattern;
  pattern.text_ = std::string(text);
  try {
    pattern.regex_ = std::make_shared<const std::regex>(groups.rewritten, std::regex::ECMAScript);
  } catch (const std::regex_error& error) {
    return bad(text, std::string("not a regular expression (") + error.what() + ")");
  }
  for (std::size_t group = 1; group <= groups.count; ++group) {
    if (group != groups.step) {
      pattern.valueGroup_ = group;
      break;
    }
  }
  if (pattern.valueGroup_ == 0) {
    return bad(text,
               "no capture group for the loss: put the number in parentheses, as in "
               "'loss=([0-9.eE+-]+)'");
  }
  pattern.stepGroup_ = groups.step;
  return pattern;
}

std::optional<LossPattern::Match> LossPattern::find(std::string_view line) const {
  std::match_results<std::string_view::const_iterator> found;
  if (!std::regex_search(line.begin(), line.end(), found, *regex_)) return std::nullopt;
  Match match;
  match.value = found[valueGroup_].str();
  if (stepGroup_ && found[*stepGroup_].matched) match.step = found[*stepGroup_].str();
  return match;
}

}  // namespace tb::logs
