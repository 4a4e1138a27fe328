// /proc/driver/nvidia/version is the last resort and also what the NGC
// entrypoint itself reads, so it is the kernel module's own word. Its first
// line comes in two shapes, proprietary and open module:
//   NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 ...
//   NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.124.06  Release Build ...
// so the version is the first word after "Kernel Module" (and "for <arch>").
#include "host_probes.hpp"
#include "tb/common/atomic_file.hpp"
#include "tb/common/text.hpp"
#include "tb/compat/host_detection.hpp"

namespace tb::compat {
namespace {

constexpr std::string_view kPrefix = "NVRM version:";
constexpr std::string_view kModule = "Kernel Module";

std::vector<std::string_view> words(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t') ++i;
    if (i > start) out.push_back(text.substr(start, i - start));
  }
  return out;
}

Error parseError(const std::string& what) {
  return makeError(ErrorKind::Parse, "driver version file: " + what);
}

}  // namespace

Expected<catalog::DriverVersion> parseProcDriverVersion(std::string_view content) {
  for (const auto rawLine : split(content, '\n')) {
    const std::string_view line = trim(rawLine);
    if (line.substr(0, kPrefix.size()) != kPrefix) continue;

    const std::size_t module = line.find(kModule);
    if (module == std::string_view::npos) {
      return parseError("the NVRM line names no kernel module: '" + std::string(line) + "'");
    }
    auto after = words(line.substr(module + kModule.size()));
    std::size_t next = 0;
    if (after.size() >= 2 && after[0] == "for") next = 2;  // open module: "for x86_64"
    if (next >= after.size()) {
      return parseError("no version after 'Kernel Module' in '" + std::string(line) + "'");
    }
    auto version = catalog::DriverVersion::parse(after[next]);
    if (!version) return parseError(version.error().message);
    return version;
  }
  return parseError("no 'NVRM version:' line");
}

namespace detail {

Expected<ProbeResult> probeProcDriverFile(const std::string& path) {
  std::error_code ignored;
  if (!std::filesystem::exists(path, ignored)) {
    return makeError(ErrorKind::NotFound, path + ": not found");
  }
  auto content = readFile(path);  // its errors already name the path
  if (!content) return std::move(content).error();
  auto version = parseProcDriverVersion(*content);
  if (!version) return makeError(ErrorKind::Parse, path + ": " + version.error().message);
  ProbeResult result;
  result.driver = *version;
  result.notes.push_back(path + " gives the driver only, not the GPUs");
  return result;
}

}  // namespace detail
}  // namespace tb::compat
