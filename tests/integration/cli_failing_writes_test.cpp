// Writes that fail keep what was there: each file the CLI writes that people
// keep (an HTML report with its charts, a Markdown report, cluster results
// from `import`, a run's files) is written where it cannot be: a full disk
// (a small tmpfs filled up), a file-size limit (`ulimit -f`) and a read-only
// folder (a tmpfs remounted read-only; root, which CI runs as, writes through
// a chmod). Each must exit 1 with a message naming the file, keep the file's
// previous content, and leave no temporary file behind.
#include <gtest/gtest.h>

#include <sys/mount.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "tb/common/subprocess.hpp"

namespace tb::cli::test {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// A tmpfs of its own at a fresh folder, unmounted at the end.
class Tmpfs {
 public:
  explicit Tmpfs(const std::string& name)
      : dir_(fs::temp_directory_path() /
             ("tb-failing-writes-" + std::to_string(::getpid()) + "-" + name)) {
    fs::create_directories(dir_);
    mounted_ = ::mount("tmpfs", dir_.c_str(), "tmpfs", 0, "size=1m,mode=0777") == 0;
  }
  ~Tmpfs() {
    if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  Tmpfs(const Tmpfs&) = delete;
  Tmpfs& operator=(const Tmpfs&) = delete;

  [[nodiscard]] bool mounted() const { return mounted_; }
  [[nodiscard]] const fs::path& dir() const { return dir_; }

  /// Fills the file system to the last byte.
  void fill() const {
    std::ofstream filler(dir_ / "filler", std::ios::binary);
    const std::string block(4096, 'x');
    while (filler.write(block.data(), static_cast<std::streamsize>(block.size()))) {
    }
    filler.close();
    std::ofstream(dir_ / "filler-tail", std::ios::binary) << std::string(4096, 'x');
  }

  [[nodiscard]] bool remountReadOnly() const {
    return ::mount("tmpfs", dir_.c_str(), "tmpfs", MS_REMOUNT | MS_RDONLY, "size=1m") == 0;
  }

 private:
  fs::path dir_;
  bool mounted_ = false;
};

/// One file the CLI writes: the command (with OUT where the path goes) and
/// the content it replaces.
struct Writer {
  std::string name;
  std::vector<std::string> args;
  std::string file;  ///< under the test's folder
};

std::vector<Writer> writers() {
  const std::string data = std::string(TB_TEST_DATA_DIR);
  return {
      {"html report with charts",
       {"report", "--in", data + "/bench/results-fixture.json", "--out", "OUT"},
       "report.html"},
      {"markdown report",
       {"report", "--in", data + "/bench/results-fixture.json", "--out", "OUT"},
       "report.md"},
      {"cluster results from a log",
       {"import", data + "/logs/megatron/core_v0.16_first_iteration.log", "--label", "Base",
        "--gpus", "8", "--seq", "4096", "--out", "OUT"},
       "cluster.json"},
      {"a run's config and summary",
       {"run", "--model", "tiny", "--steps", "2", "--threads", "1", "--run-dir", "OUT"},
       "run"},
  };
}

std::vector<std::string> withOut(std::vector<std::string> args, const fs::path& out) {
  for (std::string& arg : args) {
    if (arg == "OUT") arg = out.string();
  }
  return args;
}

/// What a failed write must leave: the exit code, the file named, the old
/// content kept, no temporary file left.
void expectKept(const CliRun& run, const fs::path& out, const std::string& previous,
                const std::string& why) {
  EXPECT_EQ(run.exitCode, 1) << why << "\n" << run.err;
  const bool isRun = fs::is_directory(out);
  // A run names the file it could not write inside its folder.
  EXPECT_NE(run.err.find(out.string()), std::string::npos) << why << "\n" << run.err;
  EXPECT_EQ(run.err.find("terminate called"), std::string::npos) << run.err;
  const fs::path kept = isRun ? out / "summary.json" : out;
  EXPECT_EQ(slurp(kept), previous) << why;
  for (const auto& entry : fs::directory_iterator(out.parent_path())) {
    EXPECT_EQ(entry.path().filename().string().find(".tmp-"), std::string::npos)
        << why << ": " << entry.path();
  }
}

/// The previous content, as a file or (for a run) a finished run's summary.
std::string prepare(const fs::path& out, const std::string& file) {
  const std::string previous = "previous " + file + " content\n";
  if (file == "run") {
    fs::create_directories(out);
    std::ofstream(out / "summary.json") << previous;
  } else {
    std::ofstream(out) << previous;
  }
  return previous;
}

TEST(CliFailingWrites, AFullDiskKeepsThePreviousFileAndNamesIt) {
  for (const Writer& writer : writers()) {
    Tmpfs disk("full");
    if (!disk.mounted()) GTEST_SKIP() << "mounting a tmpfs needs root (CI runs as root)";
    const fs::path out = disk.dir() / writer.file;
    const std::string previous = prepare(out, writer.file);
    disk.fill();
    const CliRun run = runCli(withOut(writer.args, out));
    expectKept(run, out, previous, writer.name + " on a full disk");
    EXPECT_NE(run.err.find("No space left on device"), std::string::npos) << run.err;
  }
}

TEST(CliFailingWrites, AReadOnlyFolderKeepsThePreviousFileAndNamesIt) {
  for (const Writer& writer : writers()) {
    Tmpfs disk("ro");
    if (!disk.mounted()) GTEST_SKIP() << "mounting a tmpfs needs root (CI runs as root)";
    const fs::path out = disk.dir() / writer.file;
    const std::string previous = prepare(out, writer.file);
    ASSERT_TRUE(disk.remountReadOnly());
    const CliRun run = runCli(withOut(writer.args, out));
    expectKept(run, out, previous, writer.name + " in a read-only folder");
    EXPECT_NE(run.err.find("Read-only file system"), std::string::npos) << run.err;
  }
}

TEST(CliFailingWrites, AFileSizeLimitKeepsThePreviousFileAndNamesIt) {
  // `ulimit -f 1`: no file past 512 bytes. The CLI ignores SIGXFSZ, so the
  // write fails with EFBIG and is reported, instead of the signal ending it.
  for (const Writer& writer : writers()) {
    if (writer.file == "run") continue;  // a run's files fit in 512 bytes at first
    const fs::path dir =
        fs::temp_directory_path() / ("tb-failing-writes-" + std::to_string(::getpid()) + "-limit");
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path out = dir / writer.file;
    const std::string previous = prepare(out, writer.file);
    std::vector<std::string> argv{"/bin/sh", "-c", "ulimit -f 1 && exec \"$0\" \"$@\"",
                                  TRAINBENCH_EXE};
    for (const std::string& arg : withOut(writer.args, out)) argv.push_back(arg);
    ProcessOptions options;
    options.timeout = std::chrono::seconds(60);
    auto result = runProcess(argv, options);
    ASSERT_TRUE(result.ok());
    EXPECT_EQ(result->signal, 0) << writer.name << ": ended by signal " << result->signal;
    const CliRun run{result->exitCode, result->standardOutput, result->standardError};
    expectKept(run, out, previous, writer.name + " past ulimit -f");
    EXPECT_NE(run.err.find("File too large"), std::string::npos) << run.err;
    fs::remove_all(dir);
  }
}

}  // namespace
}  // namespace tb::cli::test
