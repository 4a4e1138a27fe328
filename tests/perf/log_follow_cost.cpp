// What following growing logs costs (the targets: under 5 % of one core in
// all and flat memory for 8 logs written at 1 MB/s each, and under 2 s from
// a line written to its record read with polling at 1 s). A writer child
// appends records of one fixed length to every log, keeping each at `rate`
// bytes per second: Megatron-LM iteration lines, or with `--format
// tensorboard` TFRecord-framed Events (the loss, the iteration time and the
// throughput of a step) to the event file of a run folder each. This
// process follows them with tb::logs::LogFollower, one poll of every log per
// interval. Since every record has the same length and the writer keeps to
// its schedule, record n of a log was complete at t0 + (n + 1) * length /
// rate, which gives each record's delay without a clock shared through the
// file. CPU is this process's own (getrusage), the writer's not included;
// memory is its resident set after each round. Prints one JSON document;
// docs/PERF.md records it.
//
//   log_follow_cost [--files 8] [--mb-per-s 1] [--seconds 30] [--interval 1]
//                   [--format megatron|tensorboard] [--dir DIR]
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "tb/logs/log_follow.hpp"
#include "tfrecord.hpp"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Settings {
  int files = 8;
  double bytesPerSecond = 1e6;
  double seconds = 30.0;
  double interval = 1.0;
  bool tensorboard = false;
  fs::path dir;
};

// One iteration line. Every field has a fixed width, so every line has the
// same length and a line's index says when it was written.
std::string iterationLine(std::int64_t index) {
  char line[512];
  const std::int64_t iteration = (index + 1) * 10;
  std::snprintf(line, sizeof line,
                " [2024-09-03 15:54:54] iteration %10lld/ 9999999990 | consumed samples: %14lld | "
                "elapsed time per iteration (ms): %7.1f | throughput per GPU (TFLOP/s/GPU): %5.1f "
                "| learning rate: 3.000000E-04 | global batch size:  1024 | lm loss: %.6E | "
                "loss scale: 1.0 | grad norm: 1.250 | number of skipped iterations:   0 |\n",
                static_cast<long long>(iteration), static_cast<long long>(iteration * 1024),
                12000.0 + static_cast<double>(index % 97),
                800.0 + static_cast<double>(index % 89) * 0.5,
                9.0 - 1e-7 * static_cast<double>(index));
  return line;
}

// ---------------------------------------------------------------------------
// TensorBoard: Events encoded by hand in protobuf's wire format, so that the
// reader's libprotobuf is not also the writer.

void appendVarint(std::string& out, std::uint64_t value, std::size_t width) {
  // Padded to `width` bytes with continuation bits, as the wire format allows,
  // so that every step encodes to the same length.
  for (std::size_t i = 0; i + 1 < width; ++i, value >>= 7)
    out += static_cast<char>(0x80U | (value & 0x7fU));
  out += static_cast<char>(value & 0x7fU);
}

template <class T>
void appendFixed(std::string& out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));  // little-endian, as the wire format is
  out.append(bytes, sizeof(T));
}

void appendLengthDelimited(std::string& out, int field, const std::string& bytes) {
  out += static_cast<char>((field << 3) | 2);
  appendVarint(out, bytes.size(), 1);
}

std::string scalarValue(const std::string& tag, float value) {
  std::string out;
  appendLengthDelimited(out, 1, tag);
  out += tag;
  out += static_cast<char>((2 << 3) | 5);  // simple_value, fixed32
  appendFixed(out, value);
  return out;
}

std::string tfrecord(const std::string& data) {
  std::string out;
  appendFixed(out, static_cast<std::uint64_t>(data.size()));
  appendFixed(out, tb::logs::detail::maskCrc(tb::logs::detail::crc32c(out)));
  out += data;
  appendFixed(out, tb::logs::detail::maskCrc(tb::logs::detail::crc32c(data)));
  return out;
}

std::string eventRecord(std::int64_t index) {
  std::string summary;
  for (const auto& value :
       {scalarValue("lm loss", static_cast<float>(9.0 - 1e-7 * static_cast<double>(index))),
        scalarValue("iteration-time", static_cast<float>(12.0 + static_cast<double>(index % 97))),
        scalarValue("throughput", static_cast<float>(800.0 + static_cast<double>(index % 89)))}) {
    appendLengthDelimited(summary, 1, value);
    summary += value;
  }
  std::string event;
  event += static_cast<char>((1 << 3) | 1);  // wall_time, fixed64
  appendFixed(event, 1.7e9 + static_cast<double>(index));
  event += static_cast<char>(2 << 3);  // step, varint
  appendVarint(event, static_cast<std::uint64_t>((index + 1) * 10), 5);
  appendLengthDelimited(event, 5, summary);
  event += summary;
  return tfrecord(event);
}

std::string fileVersionRecord() {
  std::string event;
  event += static_cast<char>((1 << 3) | 1);
  appendFixed(event, 1.7e9);
  const std::string version = "brain.Event:2";
  appendLengthDelimited(event, 3, version);
  event += version;
  return tfrecord(event);
}

// ---------------------------------------------------------------------------

std::string record(const Settings& settings, std::int64_t index) {
  return settings.tensorboard ? eventRecord(index) : iterationLine(index);
}

std::size_t recordBytes(const Settings& settings) { return record(settings, 0).size(); }

/// What the follower follows: a log, or a run folder.
fs::path followedPath(const Settings& settings, int file) {
  return settings.tensorboard ? settings.dir / ("run-" + std::to_string(file))
                              : settings.dir / ("rank0-" + std::to_string(file) + ".log");
}

/// The file the writer appends to.
fs::path logPath(const Settings& settings, int file) {
  return settings.tensorboard
             ? followedPath(settings, file) / "events.out.tfevents.1700000000.node0.1.0"
             : followedPath(settings, file);
}

// The writer: every 10 ms, each log is topped up to rate × elapsed bytes.
[[noreturn]] void writeLogs(const Settings& settings, Clock::time_point start) {
  std::vector<std::ofstream> logs;
  for (int file = 0; file < settings.files; ++file)
    logs.emplace_back(logPath(settings, file), std::ios::binary | std::ios::app);
  std::vector<std::int64_t> lines(static_cast<std::size_t>(settings.files), 0);
  const auto bytes = static_cast<double>(recordBytes(settings));
  for (;;) {
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    const auto due = static_cast<std::int64_t>(elapsed * settings.bytesPerSecond / bytes);
    for (std::size_t file = 0; file < logs.size(); ++file) {
      std::string chunk;
      for (; lines[file] < due; ++lines[file]) chunk += record(settings, lines[file]);
      logs[file] << chunk << std::flush;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

double cpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

double residentMiB() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0;
  long resident = 0;
  statm >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1 << 20);
}

Settings parse(int argc, char** argv) {
  Settings settings;
  settings.dir = fs::temp_directory_path() / ("tb-follow-cost-" + std::to_string(getpid()));
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string name = argv[i];
    const std::string value = argv[i + 1];
    if (name == "--files") settings.files = std::stoi(value);
    else if (name == "--mb-per-s") settings.bytesPerSecond = std::stod(value) * 1e6;
    else if (name == "--seconds") settings.seconds = std::stod(value);
    else if (name == "--interval") settings.interval = std::stod(value);
    else if (name == "--dir") settings.dir = value;
    else if (name == "--format" && (value == "megatron" || value == "tensorboard"))
      settings.tensorboard = value == "tensorboard";
    else if (name == "--format") {
      std::cerr << "log_follow_cost: --format " << value << ": expected megatron or tensorboard\n";
      std::exit(2);
    } else {
      std::cerr << "log_follow_cost: unknown option " << name << '\n';
      std::exit(2);
    }
  }
  return settings;
}

struct Round {
  double cpuPercent = 0.0;
  double residentMiB = 0.0;
  double worstDelay = 0.0;
};

// One poll of every log. The delay is that of the oldest record a poll
// read, the one that waited longest: from the time its line was complete to
// the end of the poll.
double pollAll(std::vector<tb::logs::LogFollower>& followers, Clock::time_point start,
               const Settings& settings) {
  double worst = 0.0;
  for (auto& follower : followers) {
    const auto& latest = follower.latest();
    const std::int64_t before = latest && latest->run.lastStep ? *latest->run.lastStep : 0;
    auto update = follower.poll();
    if (!update) {
      std::cerr << "log_follow_cost: " << update.error().message << '\n';
      std::exit(1);
    }
    if (!latest || !latest->run.lastStep || *latest->run.lastStep <= before) continue;
    const double firstNew = static_cast<double>(before / 10);  // its line's index
    const double written =
        (firstNew + 1.0) * static_cast<double>(recordBytes(settings)) / settings.bytesPerSecond;
    const double now = std::chrono::duration<double>(Clock::now() - start).count();
    worst = std::max(worst, now - written);
  }
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  const Settings settings = parse(argc, argv);
  fs::remove_all(settings.dir);
  fs::create_directories(settings.dir);
  for (int file = 0; file < settings.files; ++file) {
    fs::create_directories(logPath(settings, file).parent_path());
    std::ofstream(logPath(settings, file), std::ios::binary)
        << (settings.tensorboard ? fileVersionRecord() : std::string());
  }
  const Clock::time_point start = Clock::now();
  const pid_t writer = fork();
  if (writer == 0) writeLogs(settings, start);

  std::vector<tb::logs::LogFollower> followers;
  for (int file = 0; file < settings.files; ++file) {
    auto follower = tb::logs::LogFollower::open(followedPath(settings, file));
    if (!follower) return 1;
    followers.push_back(std::move(*follower));
  }
  std::vector<Round> rounds;
  const auto interval = std::chrono::duration<double>(settings.interval);
  double cpuBefore = cpuSeconds();
  auto roundStart = Clock::now();
  while (Clock::now() - start < std::chrono::duration<double>(settings.seconds)) {
    Round round;
    round.worstDelay = pollAll(followers, start, settings);
    round.residentMiB = residentMiB();
    std::this_thread::sleep_until(roundStart +
                                  std::chrono::duration_cast<Clock::duration>(interval));
    const double cpuNow = cpuSeconds();
    const double wall = std::chrono::duration<double>(Clock::now() - roundStart).count();
    round.cpuPercent = 100.0 * (cpuNow - cpuBefore) / wall;
    cpuBefore = cpuNow;
    roundStart = Clock::now();
    rounds.push_back(round);
  }
  kill(writer, SIGKILL);
  waitpid(writer, nullptr, 0);

  // The first rounds open the files and detect the format; the steady state
  // is what follows.
  const std::size_t skip = std::min<std::size_t>(2, rounds.size());
  double cpu = 0.0;
  double worstDelay = 0.0;
  double firstRss = rounds.empty() ? 0.0 : rounds[skip].residentMiB;
  double peakRss = 0.0;
  nlohmann::json residentEvery10s = nlohmann::json::array();
  for (std::size_t i = 0; i < rounds.size(); i += 10)
    residentEvery10s.push_back(rounds[i].residentMiB);
  for (std::size_t i = skip; i < rounds.size(); ++i) {
    cpu += rounds[i].cpuPercent;
    worstDelay = std::max(worstDelay, rounds[i].worstDelay);
    peakRss = std::max(peakRss, rounds[i].residentMiB);
  }
  const double steadyRounds = static_cast<double>(rounds.size() - skip);
  std::int64_t records = 0;
  for (const auto& follower : followers)
    if (follower.latest()) records += follower.latest()->run.records;
  std::uintmax_t bytes = 0;
  for (int file = 0; file < settings.files; ++file) bytes += fs::file_size(logPath(settings, file));
  fs::remove_all(settings.dir);

  std::cout << nlohmann::json{{"format", settings.tensorboard ? "tensorboard" : "megatron"},
                              {"files", settings.files},
                              {"mb_per_s_per_file", settings.bytesPerSecond / 1e6},
                              {"interval_s", settings.interval},
                              {"seconds", settings.seconds},
                              {"bytes_written", bytes},
                              {"records_read", records},
                              {"follower_cpu_percent_of_one_core", cpu / steadyRounds},
                              {"worst_delay_s", worstDelay},
                              {"resident_mib_after_warmup", firstRss},
                              {"resident_mib_peak", peakRss},
                              {"resident_mib_every_10_rounds", residentEvery10s}}
                   .dump(2)
            << '\n';
  return 0;
}
