// snprintf rather than iostreams: the output must not depend on a global
// locale a GUI may have set (a decimal comma would break the CSV).
#include "report_format.hpp"

#include <array>
#include <cstdio>

namespace tb::report::detail {

std::string fixed(double value, int decimals) {
  std::array<char, 64> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.*f", decimals, value);
  std::string text(buffer.data());
  // Normalise a locale's decimal comma, should one be active.
  for (char& c : text) {
    if (c == ',') c = '.';
  }
  return text;
}

std::string speedupText(double speedup) {
  return speedup > 0.0 ? fixed(speedup, 2) + "\u00d7" : "\u2014";
}

std::string gpusText(int gpus) { return gpus > 0 ? std::to_string(gpus) : "\u2014"; }

std::string base64(const std::string& data) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < data.size(); i += 3) {
    const auto n = (static_cast<unsigned>(static_cast<unsigned char>(data[i])) << 16u) |
                   (static_cast<unsigned>(static_cast<unsigned char>(data[i + 1])) << 8u) |
                   static_cast<unsigned>(static_cast<unsigned char>(data[i + 2]));
    out.push_back(kAlphabet[(n >> 18u) & 63u]);
    out.push_back(kAlphabet[(n >> 12u) & 63u]);
    out.push_back(kAlphabet[(n >> 6u) & 63u]);
    out.push_back(kAlphabet[n & 63u]);
  }
  const std::size_t rest = data.size() - i;
  if (rest > 0) {
    unsigned n = static_cast<unsigned>(static_cast<unsigned char>(data[i])) << 16u;
    if (rest == 2) n |= static_cast<unsigned>(static_cast<unsigned char>(data[i + 1])) << 8u;
    out.push_back(kAlphabet[(n >> 18u) & 63u]);
    out.push_back(kAlphabet[(n >> 12u) & 63u]);
    out.push_back(rest == 2 ? kAlphabet[(n >> 6u) & 63u] : '=');
    out.push_back('=');
  }
  return out;
}

}  // namespace tb::report::detail
