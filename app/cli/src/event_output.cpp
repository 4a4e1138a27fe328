// One flush per line: the reader is another process that must not wait for a
// buffer to fill.
#include "event_output.hpp"

#include <cerrno>
#include <cstring>

#include "tb/common/atomic_file.hpp"

namespace tb::cli {

Expected<runs::EventSink> openEventSink(const std::string& target, std::ostream& out,
                                        std::shared_ptr<std::ofstream>& file) {
  if (target.empty()) return runs::EventSink{};
  if (target == "-") {
    return runs::EventSink([&out](const std::string& line) { out << line << '\n' << std::flush; });
  }
  errno = 0;
  file = std::make_shared<std::ofstream>(target, std::ios::out | std::ios::trunc);
  if (!*file) {
    const int code = errno;
    return makeError(writeFailureKind(code),
                     "--events: cannot write " + target +
                         (code != 0 ? ": " + std::string(std::strerror(code)) : ""));
  }
  return runs::EventSink([file](const std::string& line) { *file << line << '\n' << std::flush; });
}

}  // namespace tb::cli
