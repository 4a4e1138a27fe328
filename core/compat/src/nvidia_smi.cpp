// nvidia-smi is the second probe: it needs no library of ours, only a child
// process with a deadline (a wedged driver can make it hang for minutes).
// Its CSV is parsed by hand because the format is fixed and tiny, but real
// output has ", " separators, trailing spaces, CRLF line ends, a blank last
// line and "[N/A]" fields, and every one of those must parse.
#include <chrono>

#include "host_probes.hpp"
#include "tb/common/subprocess.hpp"
#include "tb/common/text.hpp"
#include "tb/compat/host_detection.hpp"

namespace tb::compat {
namespace {

constexpr std::string_view kNotAvailable = "[N/A]";

/// The line as shown in a message: quoted, and cut short when it is long.
std::string quoted(std::string_view line) {
  constexpr std::size_t kShown = 80;
  if (line.size() <= kShown) return "'" + std::string(line) + "'";
  return "'" + std::string(line.substr(0, kShown)) + "...'";
}

Error lineError(std::size_t lineNumber, const std::string& what) {
  return makeError(ErrorKind::Parse,
                   "nvidia-smi output line " + std::to_string(lineNumber) + ": " + what);
}

Expected<SmiGpuRow> parseRow(std::string_view line, std::size_t lineNumber) {
  // The name sits between the first and the last comma, so a name with a
  // comma in it would still parse.
  const std::size_t first = line.find(',');
  const std::size_t last = line.rfind(',');
  if (first == std::string_view::npos || first == last) {
    return lineError(lineNumber, "expected 'driver_version, name, count', got " + quoted(line));
  }
  const std::string_view driverText = trim(line.substr(0, first));
  const std::string_view name = trim(line.substr(first + 1, last - first - 1));
  const std::string_view countText = trim(line.substr(last + 1));

  if (driverText == kNotAvailable) return lineError(lineNumber, "the driver version is [N/A]");
  auto driver = catalog::DriverVersion::parse(driverText);
  if (!driver) return lineError(lineNumber, driver.error().message);

  SmiGpuRow row;
  row.driver = *driver;
  row.name = name == kNotAvailable ? std::string() : std::string(name);
  if (countText != kNotAvailable) {
    const auto count = parseUnsigned(countText);
    if (!count || *count > 4096) {
      return lineError(lineNumber, "GPU count " + quoted(countText) + " is not a number of GPUs");
    }
    row.count = static_cast<int>(*count);
  }
  return row;
}

/// The first non-blank line of what a failing nvidia-smi printed, for the note.
std::string firstLine(const ProcessResult& run) {
  for (const std::string* stream : {&run.standardOutput, &run.standardError}) {
    for (const auto line : split(*stream, '\n')) {
      if (!trim(line).empty()) return std::string(trim(line));
    }
  }
  return "no output";
}

}  // namespace

Expected<std::vector<SmiGpuRow>> parseNvidiaSmiCsv(std::string_view output) {
  std::vector<SmiGpuRow> rows;
  const auto lines = split(output, '\n');
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = trim(lines[i]);  // also drops the '\r' of CRLF
    if (line.empty()) continue;
    auto row = parseRow(line, i + 1);
    if (!row) return std::move(row).error();
    rows.push_back(std::move(*row));
  }
  if (rows.empty()) return makeError(ErrorKind::Parse, "nvidia-smi output lists no GPU");
  return rows;
}

namespace detail {

Expected<ProbeResult> probeNvidiaSmi(const std::string& program, int timeoutMs) {
  const auto note = [&](const std::string& what) {
    return makeError(ErrorKind::Runtime, "nvidia-smi: " + what);
  };
  ProcessOptions options;
  options.timeout = std::chrono::milliseconds(timeoutMs);
  auto run = runProcess({program, "--query-gpu=driver_version,name,count", "--format=csv,noheader"},
                        options);
  if (!run) {
    if (run.error().kind == ErrorKind::NotFound) {
      return note(program.find('/') == std::string::npos ? "not found on PATH"
                                                         : program + " not found");
    }
    return note(run.error().message);
  }
  if (run->timedOut) {
    return note(program + " gave no answer within " + std::to_string(timeoutMs) +
                " ms and was stopped");
  }
  if (run->signal != 0) {
    return note(program + " was ended by signal " + std::to_string(run->signal));
  }
  if (run->exitCode != 0) {
    return note(program + " exited with status " + std::to_string(run->exitCode) + ": " +
                firstLine(*run));
  }
  auto rows = parseNvidiaSmiCsv(run->standardOutput);
  if (!rows) return note(rows.error().message);

  ProbeResult result;
  result.driver = rows->front().driver;
  for (const auto& row : *rows) {
    result.gpuNames.push_back(row.name);
    if (row.driver != result.driver) {
      result.notes.push_back("nvidia-smi: GPUs report different drivers (" + result.driver.text() +
                             " and " + row.driver.text() + "); the first is used");
    }
  }
  return result;
}

}  // namespace detail
}  // namespace tb::compat
