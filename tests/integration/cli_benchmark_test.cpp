// `trainbench benchmark` through the real binary with real `trainbench run`
// children on the tiny model (3 steps, 1 warm-up, 1 repeat: a few seconds per
// configuration). One ablation is shared by the tests that only read it.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "cli_runner.hpp"
#include "tb/bench/ablation.hpp"
#include "tb/bench/results.hpp"
#include "tb/runs/benchmark_event.hpp"
#include "tb/common/subprocess.hpp"

namespace {

namespace fs = std::filesystem;
using tb::cli::test::CliRun;
using tb::cli::test::parseSingleDocument;
using tb::cli::test::runCli;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("tb_cli_benchmark_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// One thread per run: on a loaded 2-core machine more threads only contend.
const std::vector<std::string> kTiny = {"--model", "tiny",      "--steps", "3",         "--warmup",
                                        "1",       "--threads", "1",       "--repeats", "1"};

// runCli's 30 s limit is for quick commands; an ablation gets more.
CliRun runBenchmark(std::vector<std::string> args) {
  args.insert(args.begin(), {TRAINBENCH_EXE, "benchmark"});
  tb::ProcessOptions options;
  options.timeout = std::chrono::milliseconds(180000);
  options.environment = {{"TRAINBENCH_DISABLE_NVML", "1"},
                         {"XDG_DATA_HOME", scratch("xdg").string()},
                         {"LC_ALL", "C"}};
  const auto result = tb::runProcess(args, options);
  CliRun run;
  if (!result) {
    ADD_FAILURE() << result.error().message;
    return run;
  }
  EXPECT_FALSE(result->timedOut);
  run.exitCode = result->exitCode;
  run.out = result->standardOutput;
  run.err = result->standardError;
  return run;
}

// ctest runs every test in a process of its own, so one test holds the
// whole check of a successful ablation instead of sharing a fixture.
TEST(CliBenchmark, TheAblationRunsDataParallelWithNprocPerNode) {
  const fs::path out = scratch("data_parallel");
  std::vector<std::string> args = kTiny;
  args.insert(args.end(), {"--out", out.string(), "--nproc-per-node", "2"});
  const CliRun run = runBenchmark(args);
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const auto results = tb::bench::loadResults(out / "results.json");
  ASSERT_TRUE(results.ok()) << results.error().message;
  EXPECT_EQ(results->machine.processes, 2);
  EXPECT_EQ(results->completedRuns, 4);
  for (const auto& config : results->configurations) {
    ASSERT_EQ(config.runs.size(), 1U) << config.label;
    EXPECT_EQ(config.runs[0].state, tb::runs::RunState::Completed) << config.label;
    EXPECT_LE(config.peakBytes, results->memoryBudgetBytes) << "the budget is per rank";
    // Each run was two workers: rank 1 kept its own record below the run's.
    EXPECT_TRUE(fs::exists(config.runs[0].runDir + "/ranks/1/summary.json")) << config.label;
  }
  const CliRun refused =
      runBenchmark({"--model", "tiny", "--ablation", "--nproc-per-node", "0", "--dry-run"});
  EXPECT_EQ(refused.exitCode, 2);
  EXPECT_NE(refused.err.find("--nproc-per-node 0"), std::string::npos) << refused.err;
}

TEST(CliBenchmark, TinyAblationWritesResultsAndPrintsTheTable) {
  const fs::path out = scratch("tiny");
  std::vector<std::string> args = kTiny;
  args.insert(args.end(), {"--out", out.string()});
  const CliRun run = runBenchmark(args);
  ASSERT_EQ(run.exitCode, 0) << run.err;

  const auto results = tb::bench::loadResults(out / "results.json");
  ASSERT_TRUE(results.ok()) << results.error().message;
  std::vector<std::string> labels;
  for (const auto& config : results->configurations) labels.push_back(config.label);
  const std::vector<std::string> chain{"Base", "AC2", "AC2+CompilerOpt", "AC2+CompilerOpt+CkptOpt"};
  EXPECT_EQ(labels, chain);
  EXPECT_FALSE(results->machine.cpuModel.empty());
  EXPECT_GE(results->machine.cores, 1);
  EXPECT_GE(results->machine.threads, 1);
  EXPECT_FALSE(results->machine.libtorchVersion.empty());
  EXPECT_FALSE(results->machine.matmulPath.empty());
  EXPECT_EQ(results->model, "tiny");
  EXPECT_EQ(results->steps, 3);
  EXPECT_EQ(results->warmupSteps, 1);
  EXPECT_GT(results->memoryBudgetBytes, 0U);
  EXPECT_TRUE(results->complete);
  EXPECT_EQ(results->plannedRuns, 4);
  EXPECT_EQ(results->completedRuns, 4);
  for (const auto& config : results->configurations) {
    ASSERT_EQ(config.runs.size(), 1U) << config.label;
    EXPECT_EQ(config.runs[0].state, tb::runs::RunState::Completed) << config.label;
    EXPECT_EQ(config.throughput.count, 1U);
    EXPECT_GT(config.throughput.median, 0.0);
    EXPECT_GT(config.peakBytes, 0U);
    EXPECT_LE(config.peakBytes, results->memoryBudgetBytes) << config.label;
    EXPECT_EQ(config.stepTimes.size(), 2U) << "the warm-up step must be left out";
    EXPECT_EQ(config.lossCurve.size(), 3U) << config.label;
    EXPECT_TRUE(fs::exists(config.runs[0].runDir + "/summary.json"));
  }

  std::istringstream lines(run.out);
  std::vector<std::string> rows;
  for (std::string line; std::getline(lines, line);) {
    for (const std::string& label : chain) {
      if (line.starts_with(label + " ")) rows.push_back(label);
    }
  }
  EXPECT_EQ(rows, chain) << run.out;
  EXPECT_NE(run.out.find("vs Base"), std::string::npos);
  EXPECT_NE(run.out.find("1.00x"), std::string::npos);
  EXPECT_NE(run.out.find("Memory budget: " + std::to_string(results->memoryBudgetBytes)),
            std::string::npos)
      << run.out;
  // Not a terminal: one line per finished run on stderr.
  EXPECT_NE(run.err.find("[4/4] AC2+CompilerOpt+CkptOpt repeat 1: ok"), std::string::npos)
      << run.err;
}

// Programs follow a benchmark through --events alone: stdout holds nothing but
// event lines, every kind appears in order, and people's text is on stderr.
TEST(CliBenchmark, EventsOnStdoutCarryEveryKindAndNothingElse) {
  const fs::path out = scratch("events");
  std::vector<std::string> args = kTiny;
  args.insert(args.end(), {"--out", out.string(), "--events", "-"});
  const CliRun run = runBenchmark(args);
  ASSERT_EQ(run.exitCode, 0) << run.err;

  using Kind = tb::runs::BenchmarkEventKind;
  std::vector<tb::runs::BenchmarkEvent> events;
  std::istringstream lines(run.out);
  for (std::string line; std::getline(lines, line);) {
    auto event = tb::runs::parseBenchmarkEventLine(line);
    ASSERT_TRUE(event.ok()) << "not an event line on stdout: " << line;
    events.push_back(*event);
  }
  ASSERT_GE(events.size(), 2U + 4U * 2U);
  EXPECT_EQ(events.front().kind, Kind::Plan);
  EXPECT_EQ(events.front().plan.runs.size(), 4U);
  EXPECT_EQ(events.front().plan.resultsFile, (out / "results.json").string());
  EXPECT_TRUE(events.front().plan.budgetFromPredictor);
  EXPECT_EQ(events.back().kind, Kind::Summary);
  EXPECT_EQ(events.back().summary.finishedRuns, 4);
  EXPECT_FALSE(events.back().summary.stopped);
  std::vector<std::string> ended;
  bool stepped = false;
  for (const auto& event : events) {
    if (event.kind == Kind::RunStep) stepped = stepped || event.step >= 1;
    if (event.kind != Kind::RunEnd) continue;
    EXPECT_EQ(event.end.state, tb::runs::RunState::Completed) << event.end.message;
    EXPECT_GT(event.end.tokensPerSecond, 0.0);
    ended.push_back(event.run.label);
  }
  EXPECT_TRUE(stepped) << "no run_step event reported a step";
  EXPECT_EQ(ended, (std::vector<std::string>{"Base", "AC2", "AC2+CompilerOpt",
                                             "AC2+CompilerOpt+CkptOpt"}));
  // People's text, rendered from the same events, is on stderr.
  EXPECT_NE(run.err.find("[4/4] AC2+CompilerOpt+CkptOpt repeat 1: ok"), std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("vs Base"), std::string::npos) << run.err;
}

TEST(CliBenchmark, EventsOnStdoutAndJsonTogetherAreRefused) {
  std::vector<std::string> args = kTiny;
  args.insert(args.end(), {"--events", "-", "--json"});
  const CliRun run = runBenchmark(args);
  EXPECT_EQ(run.exitCode, 2) << run.err;
  EXPECT_NE(run.err.find("--events -"), std::string::npos) << run.err;
}

TEST(CliBenchmark, BadInputExitsTwoNamingTheValue) {
  const CliRun repeats = runCli({"benchmark", "--model", "tiny", "--repeats", "0"});
  EXPECT_EQ(repeats.exitCode, 2);
  EXPECT_NE(repeats.err.find("--repeats 0: must be at least 1"), std::string::npos) << repeats.err;
  const CliRun model = runCli({"benchmark", "--model", "gpt-17"});
  EXPECT_EQ(model.exitCode, 2);
  EXPECT_NE(model.err.find("gpt-17"), std::string::npos) << model.err;
  const CliRun warmup = runCli({"benchmark", "--steps", "3", "--warmup", "3"});
  EXPECT_EQ(warmup.exitCode, 2);
  EXPECT_NE(warmup.err.find("--warmup 3: must be"), std::string::npos) << warmup.err;
  EXPECT_TRUE(repeats.out.empty() && model.out.empty() && warmup.out.empty());
}

TEST(CliBenchmark, FailedRunsAreRecordedAndTheExitCodeIsOne) {
  // 64 KiB holds no configuration of tiny: Base and AC2 run out of memory,
  // the recompute planner refuses the budget for CkptOpt before it starts.
  const fs::path out = scratch("oom");
  std::vector<std::string> args = kTiny;
  args.insert(args.end(), {"--memory-budget", "65536", "--out", out.string()});
  args.push_back("--json");
  const CliRun run = runBenchmark(args);
  EXPECT_EQ(run.exitCode, 1) << run.err;
  EXPECT_NE(run.err.find("4 of 4 runs did not complete"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("Memory budget: 65536 bytes"), std::string::npos) << run.err;
  const auto results = tb::bench::loadResults(out / "results.json");
  ASSERT_TRUE(results.ok()) << results.error().message;
  // --json: stdout is the results document itself, even when runs failed.
  std::ifstream file(out / "results.json");
  EXPECT_EQ(parseSingleDocument(run), nlohmann::json::parse(file));
  // Every run ended, none ended ok: the file says it is partial.
  EXPECT_FALSE(results->complete);
  EXPECT_EQ(results->plannedRuns, 4);
  EXPECT_EQ(results->completedRuns, 0);
  for (const auto& config : results->configurations) {
    ASSERT_EQ(config.runs.size(), 1U) << config.label;
    EXPECT_NE(config.runs[0].state, tb::runs::RunState::Completed) << config.label;
    EXPECT_EQ(config.throughput.count, 0U);
  }
}

// Starts the benchmark with stdout and stderr in files, so the test can
// signal it while it runs.
pid_t spawnBenchmark(const std::vector<std::string>& args, const fs::path& log) {
  std::vector<std::string> argv{TRAINBENCH_EXE, "benchmark"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> pointers;
  for (std::string& arg : argv) pointers.push_back(arg.data());
  pointers.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = -1;
  const int error = posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, pointers.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  EXPECT_EQ(error, 0);
  return error == 0 ? pid : -1;
}

std::size_t finishedRuns(const fs::path& resultsFile) {
  const auto results = tb::bench::loadResults(resultsFile);
  if (!results) return 0;
  std::size_t runs = 0;
  for (const auto& config : results->configurations) runs += config.runs.size();
  return runs;
}

TEST(CliBenchmark, InterruptKeepsTheFinishedRunsAndExitsOne) {
  const fs::path out = scratch("interrupt");
  std::vector<std::string> args = kTiny;
  args.back() = "2";  // 8 runs: plenty left when the signal comes
  args.insert(args.end(), {"--out", out.string()});
  const pid_t pid = spawnBenchmark(args, out / "benchmark.log");
  ASSERT_GT(pid, 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (finishedRuns(out / "results.json") == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ::kill(pid, SIGINT);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  std::ifstream logFile(out / "benchmark.log");
  const std::string log((std::istreambuf_iterator<char>(logFile)),
                        std::istreambuf_iterator<char>());
  EXPECT_EQ(WEXITSTATUS(status), 1) << log;
  EXPECT_NE(log.find("stopped by SIGINT"), std::string::npos) << log;
  EXPECT_NE(log.find("partial"), std::string::npos) << log;
  // The table under which the medians are read says so too.
  EXPECT_NE(log.find("The results are partial: "), std::string::npos) << log;
  const auto results = tb::bench::loadResults(out / "results.json");
  ASSERT_TRUE(results.ok()) << results.error().message;
  const std::size_t runs = finishedRuns(out / "results.json");
  EXPECT_GE(runs, 1U);
  EXPECT_LT(runs, 8U);
  ASSERT_FALSE(results->configurations.front().runs.empty());
  EXPECT_EQ(results->configurations.front().runs.front().state, tb::runs::RunState::Completed);
  EXPECT_FALSE(results->complete);
  EXPECT_EQ(results->plannedRuns, 8);
  EXPECT_LT(results->completedRuns, 8);
}

// The words of the script's line that starts with `prefix`, backslash-newline
// continuations joined (split at spaces: the words tested here need no quotes).
std::vector<std::string> lineWords(const std::string& text, const std::string& prefix) {
  std::string script;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
    else script += text[i];
  }
  std::istringstream lines(script);
  std::vector<std::string> words;
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with(prefix)) continue;
    std::istringstream split(line);
    for (std::string word; split >> word;) words.push_back(word);
  }
  return words;
}

// Issue 7: the launch script of `trainbench config` calls `trainbench
// benchmark`; its exact words must be accepted by the real command.
TEST(CliBenchmark, LaunchScriptCommandIsAcceptedByTheRealCommand) {
  const CliRun config = runCli({"config", "--image", "25.10", "--format", "launch", "--model",
                                "small", "--seq", "128", "--micro-batch", "2"});
  ASSERT_EQ(config.exitCode, 0) << config.err;
  const std::vector<std::string> words = lineWords(config.out, "trainbench benchmark");
  ASSERT_GE(words.size(), 2U) << config.out;
  std::vector<std::string> args(words.begin() + 1, words.end());
  args.insert(args.end(), {"--dry-run", "--json"});
  const CliRun run = runCli(args);
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const nlohmann::json plan = parseSingleDocument(run);
  EXPECT_EQ(plan.at("model"), "small+custom");
  ASSERT_EQ(plan.at("runs").size(), 12U);  // 4 configurations x 3 repeats
  const auto argv = plan.at("runs")[0].at("argv").get<std::vector<std::string>>();
  const auto after = [&argv](const std::string& flag) {
    const auto found = std::find(argv.begin(), argv.end(), flag);
    return found == argv.end() || found + 1 == argv.end() ? std::string() : *(found + 1);
  };
  EXPECT_EQ(after("--seq"), "128");
  EXPECT_EQ(after("--batch"), "2");
  EXPECT_EQ(after("--device"), "cuda");
  EXPECT_EQ(after("--runtime"), "stock");
}

// The launch script's data-parallel `trainbench run` line (shared with the
// sbatch script and the manifest's comment) may only use options the real
// command has: a renamed flag fails here, not on a user's cluster. Two nodes
// and checkpoint optimization give the line every option it can have.
TEST(CliBenchmark, LaunchScriptEngineLineUsesOptionsOfTheRealRunCommand) {
  const CliRun config = runCli({"config", "--image", "25.10", "--format", "launch", "--model",
                                "small", "--nodes", "2", "--checkpoint-opt"});
  ASSERT_EQ(config.exitCode, 0) << config.err;
  const std::vector<std::string> words = lineWords(config.out, "trainbench run");
  ASSERT_GE(words.size(), 2U) << config.out;
  const CliRun help = runCli({"run", "--help"});
  ASSERT_EQ(help.exitCode, 0) << help.err;
  // The options the help lists: the first column of its lines, "-h,--help"
  // and "--batch,--micro-batch" split at the comma (not a flag named in a
  // description).
  std::set<std::string> known;
  std::istringstream lines(help.out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream split(line);
    std::string names;
    if (!(split >> names) || !names.starts_with("-")) continue;
    std::istringstream each(names);
    for (std::string name; std::getline(each, name, ',');) known.insert(name);
  }
  std::vector<std::string> options;
  for (const std::string& word : words) {
    if (word.starts_with("--")) options.push_back(word);
  }
  for (const char* expected : {"--nproc-per-node", "--node-rank", "--master-addr", "--recompute"}) {
    EXPECT_NE(std::find(options.begin(), options.end(), expected), options.end())
        << expected << " missing from the line: " << config.out;
  }
  for (const std::string& option : options) {
    EXPECT_TRUE(known.contains(option)) << option << " is not an option of trainbench run:\n"
                                        << help.out;
  }
}

}  // namespace
