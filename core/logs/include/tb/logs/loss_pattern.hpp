// A user's pattern for the loss line of a training script, as
// `trainbench import --loss-pattern` and the Studio's import row take it:
// an ECMAScript regular expression whose first capture group (the first not
// named `step`) holds the loss, with an optional `(?<step>…)` group for the
// step the loss belongs to (without it, the last step the framework printed).
// std::regex has no named groups, so the one named group is rewritten to a
// plain one and its index remembered.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>

#include "tb/common/expected.hpp"

namespace tb::logs {

class LossPattern {
 public:
  /// Compiles `text`; a pattern that does not compile, has no group for the
  /// value or a named group other than `step` is BadInput naming it.
  [[nodiscard]] static Expected<LossPattern> compile(std::string_view text);

  struct Match {
    std::string value;  ///< the value group's text, not yet a number
    std::optional<std::string> step;
  };
  /// The first match in `line`, if any.
  [[nodiscard]] std::optional<Match> find(std::string_view line) const;

  [[nodiscard]] const std::string& text() const noexcept { return text_; }

 private:
  LossPattern() = default;
  std::string text_;
  std::shared_ptr<const std::regex> regex_;  // shared: a pattern is copied into every import
  std::size_t valueGroup_ = 0;
  std::optional<std::size_t> stepGroup_;
};

}  // namespace tb::logs
