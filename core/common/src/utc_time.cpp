#include "tb/common/utc_time.hpp"

#include <chrono>
#include <ctime>

namespace tb {

std::string utcNow(const char* pattern) {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[64] = {};
  std::strftime(text, sizeof(text), pattern, &utc);
  return text;
}

}  // namespace tb
