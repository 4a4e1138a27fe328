// Env files as `docker run --env-file` reads them: NAME=VALUE per line, '#'
// comments, values taken literally (quotes included), which is the most
// common surprise and gets its own finding.
#include <map>
#include <regex>

#include "tb/common/text.hpp"
#include "validators.hpp"

namespace tb::config::detail {
namespace {

bool isQuoted(std::string_view value) {
  return value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
         value.back() == value.front();
}

}  // namespace

void validateEnvFile(FindingSink& sink, std::string_view content) {
  static const std::regex kName("[A-Za-z_][A-Za-z0-9_]*");
  std::map<std::string, int> seen;
  int lineNumber = 0;
  for (std::string_view raw : split(content, '\n')) {
    ++lineNumber;
    std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#') continue;
    if (line.starts_with("export ")) line = trim(line.substr(7));
    const auto equals = line.find('=');
    const std::string name(trim(line.substr(0, equals)));
    if (equals == std::string_view::npos || !std::regex_match(name, kName)) {
      sink.add(Severity::Error, lineNumber, "", "env-syntax",
               "line '" + std::string(line) + "' is not NAME=VALUE",
               "write one NAME=VALUE per line; comments start with #");
      continue;
    }
    std::string value(line.substr(equals + 1));
    if (isQuoted(value)) {
      sink.add(Severity::Warning, lineNumber, "", "env-quotes",
               name + " is quoted; docker --env-file keeps the quotes as part of the value",
               "write " + name + "=" + value.substr(1, value.size() - 2) + " without quotes");
      value = value.substr(1, value.size() - 2);
    }
    if (const auto previous = seen.find(name); previous != seen.end()) {
      sink.add(
          Severity::Warning, lineNumber, "", "env-duplicate",
          name + " is also set on line " + std::to_string(previous->second) + "; the last one wins",
          "keep one " + name + " line");
    }
    seen[name] = lineNumber;
    checkImageVariable(sink, Place{lineNumber, ""}, name, value, 0);
  }
  if (!seen.contains("NCCL_SOCKET_IFNAME")) {
    sink.add(Severity::Info, 0, "", "nccl-socket-ifname", "NCCL_SOCKET_IFNAME is not set",
             "set NCCL_SOCKET_IFNAME=eth0 for pods of 1, 2, 4 or 8 GPUs, hpn0 for 16");
  }
  if (!seen.contains("CHECKPOINT_OPTIMIZATION")) {
    sink.add(Severity::Info, 0, "", "checkpoint-optimization",
             "CHECKPOINT_OPTIMIZATION is not set: the image's checkpoint optimization is off",
             "set CHECKPOINT_OPTIMIZATION=true to turn it on");
  }
}

}  // namespace tb::config::detail
