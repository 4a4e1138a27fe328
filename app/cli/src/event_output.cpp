// One flush per line: the reader is another process that must not wait for a
// buffer to fill.
#include "event_output.hpp"

namespace tb::cli {

std::optional<runs::EventSink> openEventSink(const std::string& target, std::ostream& out,
                                             std::shared_ptr<std::ofstream>& file) {
  if (target.empty()) return runs::EventSink{};
  if (target == "-") {
    return runs::EventSink([&out](const std::string& line) { out << line << '\n' << std::flush; });
  }
  file = std::make_shared<std::ofstream>(target, std::ios::out | std::ios::trunc);
  if (!*file) return std::nullopt;
  return runs::EventSink([file](const std::string& line) { *file << line << '\n' << std::flush; });
}

}  // namespace tb::cli
