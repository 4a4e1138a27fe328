// Template bodies of log_text.hpp.
#pragma once

#include "tb/common/text.hpp"

namespace tb::logs::detail {

template <class Visit>
void forEachField(std::string_view text, std::string_view separator, Visit&& visit) {
  while (!text.empty()) {
    const auto cut = text.find(separator);
    const std::string_view field = text.substr(0, cut);
    const auto colon = field.find(':');
    const LogField parsed =
        colon == std::string_view::npos
            ? LogField{trim(field), {}}
            : LogField{trim(field.substr(0, colon)), trim(field.substr(colon + 1))};
    if (!parsed.key.empty()) visit(parsed);
    if (cut == std::string_view::npos) break;
    text.remove_prefix(cut + separator.size());
  }
}

}  // namespace tb::logs::detail
