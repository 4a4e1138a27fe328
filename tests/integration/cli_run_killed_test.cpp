// Runs killed with SIGKILL at random moments lose nothing they wrote: 100 short
// `trainbench run`s (with checkpoints every few steps, so the kills land in
// every kind of write), each killed after a random delay, and every run
// directory left must read back through the run store as interrupted, failed
// or completed (one that finished before its kill), never as unreadable, with
// a config.json and any summary.json that parse. The seed is printed; set
// TB_KILL_SEED to replay one. docs/RELIABILITY.md records the figures.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tb/runs/run_state.hpp"
#include "tb/runs/run_store.hpp"

extern char** environ;

namespace tb::cli::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr int kKills = 100;

/// Our environment with the XDG folders moved under `root`, so the runs land
/// in a store of the test's own.
std::vector<std::string> environmentUnder(const fs::path& root) {
  std::vector<std::string> variables;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string variable = *entry;
    if (variable.rfind("XDG_", 0) != 0) variables.push_back(variable);
  }
  for (const char* name : {"XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"}) {
    variables.push_back(std::string(name) + "=" + (root / name).string());
  }
  return variables;
}

pid_t spawnRun(const std::vector<std::string>& environment, const fs::path& log) {
  std::vector<std::string> argv{TRAINBENCH_EXE, "run", "--model",      "tiny", "--steps",     "60",
                                "--threads",    "1",   "--save-every", "5",    "--log-every", "1"};
  std::vector<char*> args;
  for (std::string& arg : argv) args.push_back(arg.data());
  args.push_back(nullptr);
  std::vector<std::string> env = environment;
  std::vector<char*> envp;
  for (std::string& variable : env) envp.push_back(variable.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = -1;
  const int error = posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  EXPECT_EQ(error, 0) << argv[0];
  return error == 0 ? pid : -1;
}

unsigned seed() {
  const char* given = std::getenv("TB_KILL_SEED");
  return given != nullptr ? static_cast<unsigned>(std::strtoul(given, nullptr, 10))
                          : std::random_device{}();
}

TEST(CliRunKilled, EveryRunKilledAtARandomMomentReadsBackWholeThroughTheRunStore) {
  const fs::path root = fs::temp_directory_path() / ("tb-run-killed-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root);
  const std::vector<std::string> environment = environmentUnder(root);
  const unsigned runSeed = seed();
  std::cout << "TB_KILL_SEED=" << runSeed << "\n";
  std::mt19937 random(runSeed);
  // One run to the end first: how long a whole run takes on this machine,
  // under whatever else runs beside it (LibTorch's load is most of it). The
  // kills then land between half of that and a little past it: before the
  // run directory exists, while its config is written, between steps, in a
  // checkpoint, and after the end.
  const auto begin = std::chrono::steady_clock::now();
  const pid_t whole = spawnRun(environment, root / "runs.log");
  ASSERT_GT(whole, 0);
  int wholeStatus = 0;
  ASSERT_EQ(::waitpid(whole, &wholeStatus, 0), whole);
  ASSERT_TRUE(WIFEXITED(wholeStatus) && WEXITSTATUS(wholeStatus) == 0)
      << "the uninterrupted run failed";
  const auto runMs = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                          std::chrono::steady_clock::now() - begin)
                                          .count());
  std::uniform_int_distribution<int> delayMs(runMs / 2, runMs * 11 / 10);
  std::cout << "a whole run took " << runMs << " ms\n";

  int killed = 0;  // ended by the SIGKILL, not finished before it
  for (int kill = 0; kill < kKills; ++kill) {
    const pid_t pid = spawnRun(environment, root / "runs.log");
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(delayMs(random)));
    ::kill(pid, SIGKILL);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) ++killed;
  }

  const fs::path store = root / "XDG_DATA_HOME" / "trainbench" / "runs";
  // A grace of zero: a run without a summary was killed, not still running.
  auto runs = runs::listRuns(store, 0s);
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  std::map<runs::RunState, int> states;
  for (const runs::RunRecord& run : *runs) {
    ++states[run.state];
    EXPECT_NE(run.state, runs::RunState::Unreadable) << run.id << ": " << run.message;
    EXPECT_NE(run.state, runs::RunState::Running) << run.id;
    if (runs::isRunDirectory(run.dir)) {
      EXPECT_TRUE(runs::readRunConfig(run.dir).ok()) << run.id;
    }
    auto summary = runs::readRunSummary(run.dir);
    EXPECT_TRUE(summary.ok() || summary.error().kind == ErrorKind::NotFound)
        << run.id << ": " << summary.error().message;
  }
  std::cout << kKills << " runs, " << killed << " killed by the SIGKILL, " << runs->size()
            << " run directories:";
  for (const auto& [state, count] : states)
    std::cout << " " << runs::toString(state) << " " << count;
  std::cout << "\n";
  // Enough kills land after the run directory exists to mean something (the
  // uninterrupted run's directory is among them).
  EXPECT_GE(runs->size(), static_cast<std::size_t>(kKills / 4));
  if (!HasFailure()) fs::remove_all(root);
}

}  // namespace
}  // namespace tb::cli::test
