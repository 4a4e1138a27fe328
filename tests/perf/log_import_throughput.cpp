// How fast and in how little memory `trainbench import` reads a big log
// (the target: at least 200 MB/s per core, peak memory under 64 MiB
// whatever the size). It writes a Megatron-LM log and a torchtitan log of
// the size asked for (default 1 GiB each; lines in the formats of
// docs/LOG_FORMATS.md, with the other loggers' lines real logs carry between
// them), then imports each through tb::logs::importLog in a child of its
// own, so that each import's peak resident memory (VmHWM) is its own, not
// the writer's. Prints one JSON document; docs/PERF.md records it.
//
//   log_import_throughput [--gib N] [--dir DIR] [--keep]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "tb/common/host_cores.hpp"
#include "tb/logs/log_import.hpp"

namespace {

namespace fs = std::filesystem;

/// Writes lines from `line(i)` until the file holds `bytes`, through a
/// small buffer, and returns how many records it wrote.
template <class Line>
std::int64_t writeLog(const fs::path& file, std::uint64_t bytes, Line line) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  std::string chunk;
  std::uint64_t written = 0;
  std::int64_t records = 0;
  for (std::int64_t i = 1; written < bytes; ++i) {
    chunk.clear();
    records += line(i, chunk);
    out << chunk;
    written += chunk.size();
  }
  return records;
}

/// One Megatron-LM iteration line every 10 iterations, a memory report now
/// and then, and a line of another logger between them.
std::int64_t megatronLine(std::int64_t i, std::string& out) {
  char line[512];
  const std::int64_t iteration = i * 10;
  std::snprintf(line, sizeof line,
                " [2024-09-03 15:54:54] iteration %8lld/ 99999990 | consumed samples: %12lld | "
                "elapsed time per iteration (ms): %.1f | throughput per GPU (TFLOP/s/GPU): %.1f | "
                "learning rate: 3.000000E-04 | global batch size:  1024 | lm loss: %.6E | "
                "loss scale: 1.0 | grad norm: %.3f | number of skipped iterations:   0 | "
                "number of nan iterations:   0 |\n",
                static_cast<long long>(iteration), static_cast<long long>(iteration * 1024),
                12000.0 + static_cast<double>(i % 97), 800.0 + static_cast<double>(i % 89) * 0.5,
                10.0 - static_cast<double>(i % 1000) * 1e-3,
                1.0 + static_cast<double>(i % 13) * 0.01);
  out += line;
  if (i % 50 == 0) {
    out += "[Rank 0] (after " + std::to_string(iteration) +
           " iterations) memory (MB) | allocated: 48465.27 | max allocated: 75078.43 | "
           "reserved: 75682.0 | max reserved: 75682.0\n";
  }
  if (i % 7 == 0) out += "[2024-09-03 15:54:55,123] [INFO] [checkpointing.py:72] saving nothing\n";
  return 1;
}

/// torchtitan's coloured step line of 2025, with rank prefixes.
std::int64_t torchtitanLine(std::int64_t i, std::string& out) {
  char line[512];
  std::snprintf(
      line, sizeof line,
      "[rank0]:[titan] 2025-06-01 12:00:00,000 - root - INFO - \x1b[31mstep: %lld  "
      "\x1b[32mloss: %7.4f  \x1b[38;2;180;60;0mgrad_norm: %7.4f  \x1b[33mmemory: "
      "72.82GiB(91.97%%)  \x1b[34mtps: %s  \x1b[36mtflops: %.2f  \x1b[35mmfu: %.2f%%\x1b[39m\n",
      static_cast<long long>(i), 9.0 - static_cast<double>(i % 1000) * 1e-3,
      1.0 + static_cast<double>(i % 11) * 0.01, ("7," + std::to_string(100 + i % 800)).c_str(),
      409.0 + static_cast<double>(i % 7), 41.0 + static_cast<double>(i % 5) * 0.1);
  out += line;
  if (i % 10 == 0)
    out += "[rank0]:[titan] 2025-06-01 12:00:00,000 - root - INFO - Dumping profiler traces\n";
  return 1;
}

struct Measured {
  double seconds = 0.0;
  double peakMiB = 0.0;
  std::int64_t records = 0;
  std::string format;
  std::string error;
};

/// Imports `file` in a child and reads back what it measured.
Measured importInChild(const fs::path& file) {
  int pipeFds[2];
  if (::pipe(pipeFds) != 0) return {0, 0, 0, "", "pipe failed"};
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(pipeFds[0]);
    const auto start = std::chrono::steady_clock::now();
    auto imported = tb::logs::importLog(file);
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    nlohmann::json result{{"seconds", took.count()},
                          {"peak_kib", usage.ru_maxrss},
                          {"records", imported ? imported->run.records : 0},
                          {"format", imported ? imported->run.format : ""},
                          {"error", imported ? "" : imported.error().message}};
    const std::string text = result.dump();
    const auto wrote = ::write(pipeFds[1], text.data(), text.size());
    ::_exit(wrote == static_cast<ssize_t>(text.size()) ? 0 : 1);
  }
  ::close(pipeFds[1]);
  std::string text;
  char buffer[4096];
  for (ssize_t got; (got = ::read(pipeFds[0], buffer, sizeof buffer)) > 0;) {
    text.append(buffer, static_cast<std::size_t>(got));
  }
  ::close(pipeFds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  const auto result = nlohmann::json::parse(text, nullptr, false);
  if (result.is_discarded()) return {0, 0, 0, "", "the child reported nothing"};
  return {result["seconds"].get<double>(), result["peak_kib"].get<double>() / 1024.0,
          result["records"].get<std::int64_t>(), result["format"].get<std::string>(),
          result["error"].get<std::string>()};
}

}  // namespace

int main(int argc, char** argv) {
  double gib = 1.0;
  fs::path dir = fs::temp_directory_path() / "tb-log-import-throughput";
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--gib" && i + 1 < argc) {
      gib = std::atof(argv[++i]);
    } else if (arg == "--dir" && i + 1 < argc) {
      dir = argv[++i];
    } else if (arg == "--keep") {
      keep = true;
    } else {
      std::cerr << "usage: log_import_throughput [--gib N] [--dir DIR] [--keep]\n";
      return 2;
    }
  }
  if (!(gib > 0.0)) {
    std::cerr << "log_import_throughput: --gib must be positive\n";
    return 2;
  }
  fs::create_directories(dir);
  const auto bytes = static_cast<std::uint64_t>(gib * 1024.0 * 1024.0 * 1024.0);
  nlohmann::json logs = nlohmann::json::array();
  bool ok = true;
  const struct {
    const char* name;
    std::int64_t (*line)(std::int64_t, std::string&);
  } kinds[] = {{"megatron.log", megatronLine}, {"torchtitan.log", torchtitanLine}};
  for (const auto& kind : kinds) {
    const fs::path file = dir / kind.name;
    const std::int64_t records = writeLog(file, bytes, kind.line);
    const std::uint64_t size = fs::file_size(file);
    const Measured m = importInChild(file);
    const double mbPerSecond = m.seconds > 0 ? static_cast<double>(size) / 1e6 / m.seconds : 0.0;
    ok = ok && m.error.empty() && m.records == records;
    logs.push_back({{"file", kind.name},
                    {"bytes", size},
                    {"records_written", records},
                    {"records_read", m.records},
                    {"format", m.format},
                    {"seconds", m.seconds},
                    {"mb_per_s", mbPerSecond},
                    {"peak_rss_mib", m.peakMiB},
                    {"error", m.error}});
    if (!keep) fs::remove(file);
  }
  const nlohmann::json document{{"benchmark", "log_import_throughput"},
                                {"physical_cores", tb::physicalCoreCount()},
                                {"logs", logs}};
  std::cout << document.dump(2) << '\n';
  return ok ? 0 : 1;
}
