// Following a log while a writer process appends to it: after every poll
// the follower's import must be the one-shot import of exactly the bytes it
// has read (cut lines included), whatever the writer's cuts; a truncated or
// replaced file is read again from its start and says so; a Trainer state
// rewritten whole is read again each time; the run's end ends the follow.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "line_feed_support.hpp"
#include "tb/common/subprocess.hpp"
#include "tb/logs/log_follow.hpp"
#include "tb/logs/log_import.hpp"

namespace tb::logs {
namespace {

namespace fs = std::filesystem;
using test::ScratchDir;

std::string megatronLine(int iteration, int planned) {
  const double ms = 12000.0 + 10.0 * (iteration % 7);
  const double loss = 10.0 - 0.01 * iteration;
  return " [2024-09-03 15:56:55] iteration " + std::to_string(iteration) + "/ " +
         std::to_string(planned) + " | consumed samples: " + std::to_string(iteration * 1024) +
         " | elapsed time per iteration (ms): " + std::to_string(ms) +
         " | throughput per GPU (TFLOP/s/GPU): 872.5 | learning rate: 6.976744E-07 | global "
         "batch size:  1024 | lm loss: " +
         std::to_string(loss) +
         " | loss scale: 262144.0 | grad norm: 47.021 | number of skipped iterations:   0 | "
         "number of nan iterations:   0 |\n";
}

// A Megatron-LM run of `planned` iterations logged every 10, with the memory
// report after the first logged iteration, as Megatron prints it.
std::string megatronLog(int planned) {
  std::string text = "using world size: 8, data-parallel size: 8\n";
  for (int iteration = 10; iteration <= planned; iteration += 10) {
    text += megatronLine(iteration, planned);
    if (iteration == 10)
      text +=
          "[Rank 0] (after 10 iterations) memory (MB) | allocated: 48465.2 | max allocated: "
          "75078.4 | reserved: 75682.0 | max reserved: 75682.0\n";
  }
  return text;
}

// torchtitan's rank-0 console line, colours included.
std::string torchtitanLog(int steps) {
  std::string text;
  for (int step = 1; step <= steps; ++step) {
    text += "[rank0]:[titan] 2025-06-04 08:51:58,557 - root - INFO - \x1b[31mstep: " +
            std::to_string(step) + "  \x1b[32mloss: " + std::to_string(11.0 - 0.05 * step) +
            "  \x1b[38;2;54;234;195mmemory: 30.99GiB(32.62%)  \x1b[34mtps: 7,0" +
            std::to_string(10 + step % 80) +
            "  \x1b[36mtflops: 407.35  \x1b[35mmfu: 41.19%\x1b[39m\r\n";
  }
  return text;
}

std::string readFile(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Cuts `text` at random places (inside lines, inside "\r\n", anywhere) into
// chunk files the writer appends one after another.
void writeChunks(const ScratchDir& dir, const std::string& text, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<std::size_t> length(1, 600);
  std::size_t at = 0;
  for (int index = 0; at < text.size(); ++index) {
    const std::size_t size = std::min(length(random), text.size() - at);
    char name[32];
    std::snprintf(name, sizeof name, "chunks/%05d", index);
    dir.write(name, text.substr(at, size));
    at += size;
  }
}

// The medians, the counts and the fields of two imports of the same bytes.
void expectSameImport(const ImportedLog& followed, const ImportedLog& whole) {
  runs::ImportedRun run = whole.run;
  run.source = followed.run.source;
  run.partialReason = followed.run.partialReason;  // names the file
  EXPECT_EQ(followed.run, run);
  EXPECT_EQ(followed.run.partial, whole.run.partial);
  EXPECT_EQ(followed.medians.stepTimeSeconds, whole.medians.stepTimeSeconds);
  EXPECT_EQ(followed.medians.tokensPerSecondPerGpu, whole.medians.tokensPerSecondPerGpu);
  EXPECT_EQ(followed.medians.tflopsPerGpu, whole.medians.tflopsPerGpu);
  EXPECT_EQ(followed.medians.mfu, whole.medians.mfu);
  EXPECT_EQ(followed.skippedRecords, whole.skippedRecords);
  EXPECT_EQ(followed.peakMemoryBytes, whole.peakMemoryBytes);
  EXPECT_EQ(followed.found, whole.found);
  EXPECT_EQ(followed.missing, whole.missing);
  EXPECT_EQ(followed.hints.size(), whole.hints.size());
}

struct Followed {
  int polls = 0;
  int grew = 0;
  int compared = 0;
  bool ended = false;
};

// Runs the writer (a real child appending the chunks to `log`, 10 ms apart)
// while following `log`; after each poll that grew, the import is checked
// against the one-shot import of the bytes read so far.
Followed followWhileWriting(const ScratchDir& dir, const fs::path& log) {
  Followed seen;
  auto follower = LogFollower::open(log);
  EXPECT_TRUE(follower.ok());
  if (!follower) return seen;
  const fs::path prefix = dir.path() / "prefix.log";
  auto check = [&] {
    auto update = follower->poll();
    ASSERT_TRUE(update.ok()) << update.error().message;
    ++seen.polls;
    if (!update->grew) return;
    ++seen.grew;
    const std::string bytes = readFile(log).substr(0, follower->bytesRead());
    dir.write("prefix.log", bytes);
    auto whole = importLog(prefix);
    ASSERT_TRUE(whole.ok()) << whole.error().message;
    ASSERT_TRUE(follower->latest().has_value());
    expectSameImport(*follower->latest(), *whole);
    ++seen.compared;
    seen.ended = follower->ended();
  };
  WatchOptions options;
  options.logFile = dir.path() / "writer.out";
  options.tick = std::chrono::milliseconds(5);
  const std::string script = "for f in \"$0\"/*; do cat \"$f\" >> \"$1\"; sleep 0.01; done";
  auto outcome =
      runWatchedProcess({"/bin/sh", "-c", script, (dir.path() / "chunks").string(), log.string()},
                        options, StopToken{}, check);
  EXPECT_TRUE(outcome.ok());
  if (outcome) {
    EXPECT_EQ(outcome->exitCode, 0) << readFile(options.logFile);
  }
  check();  // what the writer wrote last
  return seen;
}

TEST(LogFollower, AMegatronLogAppendedInRandomCutsReadsAsTheWholeFileDoes) {
  ScratchDir dir;
  const std::string text = megatronLog(400);
  writeChunks(dir, text, 7);
  const fs::path log = dir.write("train.log", "");
  const Followed seen = followWhileWriting(dir, log);
  EXPECT_GT(seen.grew, 3) << "the follower should have seen the log grow in steps";
  EXPECT_EQ(seen.compared, seen.grew);
  EXPECT_TRUE(seen.ended) << "iteration 400 of 400 is the run's end";
  auto whole = importLog(log);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->run.records, 40);
}

TEST(LogFollower, ATorchtitanLogWithCrLfCutsInsideLineEndsReadsAsTheWholeFileDoes) {
  ScratchDir dir;
  writeChunks(dir, torchtitanLog(120), 11);
  const fs::path log = dir.write("rank0.log", "");
  const Followed seen = followWhileWriting(dir, log);
  EXPECT_GT(seen.grew, 3);
  EXPECT_EQ(seen.compared, seen.grew);
  EXPECT_FALSE(seen.ended) << "torchtitan prints no planned step count here";
}

TEST(LogFollower, AFileWithNoLineOfAFormatYetIsWaitedFor) {
  ScratchDir dir;
  const fs::path log = dir.write("train.log", "");
  auto follower = LogFollower::open(log);
  ASSERT_TRUE(follower.ok());
  auto first = follower->poll();
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(first->problem.has_value());
  EXPECT_NE(first->problem->find("waiting"), std::string::npos) << *first->problem;
  EXPECT_FALSE(follower->latest().has_value());
  dir.write("train.log", megatronLog(20));
  auto second = follower->poll();
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(second->grew);
  ASSERT_TRUE(follower->latest().has_value());
  EXPECT_EQ(follower->latest()->run.records, 2);
}

TEST(LogFollower, ATruncatedFileIsReadAgainFromItsStartAndSaysSo) {
  ScratchDir dir;
  const fs::path log = dir.write("train.log", megatronLog(200));
  auto follower = LogFollower::open(log);
  ASSERT_TRUE(follower.ok());
  ASSERT_TRUE(follower->poll().ok());
  ASSERT_EQ(follower->latest()->run.records, 20);
  // The same path written again by a new run, in place (same inode).
  std::ofstream(log, std::ios::binary | std::ios::trunc) << megatronLog(30);
  auto update = follower->poll();
  ASSERT_TRUE(update.ok());
  ASSERT_TRUE(update->restarted.has_value());
  EXPECT_NE(update->restarted->find("truncated"), std::string::npos) << *update->restarted;
  EXPECT_TRUE(update->grew);
  EXPECT_EQ(follower->latest()->run.records, 3);
}

TEST(LogFollower, AReplacedFileIsReadAgainFromItsStartAndSaysSo) {
  ScratchDir dir;
  const fs::path log = dir.write("train.log", megatronLog(50));
  auto follower = LogFollower::open(log);
  ASSERT_TRUE(follower.ok());
  ASSERT_TRUE(follower->poll().ok());
  ASSERT_EQ(follower->latest()->run.records, 5);
  // A new file renamed over the old one (log rotation, an atomic writer):
  // longer than what was read, so only its inode tells.
  const fs::path fresh = dir.write("fresh.log", megatronLog(400));
  fs::rename(fresh, log);
  auto update = follower->poll();
  ASSERT_TRUE(update.ok());
  ASSERT_TRUE(update->restarted.has_value());
  EXPECT_NE(update->restarted->find("replaced"), std::string::npos) << *update->restarted;
  EXPECT_EQ(follower->latest()->run.records, 40);
}

TEST(LogFollower, AFileThatDisappearsIsSaidAndWhatWasReadIsKept) {
  ScratchDir dir;
  const fs::path log = dir.write("train.log", megatronLog(50));
  auto follower = LogFollower::open(log);
  ASSERT_TRUE(follower.ok());
  ASSERT_TRUE(follower->poll().ok());
  fs::remove(log);
  auto update = follower->poll();
  ASSERT_TRUE(update.ok());
  ASSERT_TRUE(update->problem.has_value());
  EXPECT_NE(update->problem->find("no such file any more"), std::string::npos);
  ASSERT_TRUE(follower->latest().has_value());
  EXPECT_EQ(follower->latest()->run.records, 5);
}

TEST(LogFollower, ACorruptLineEndsTheFollowingAndKeepsWhatWasRead) {
  ScratchDir dir;
  const fs::path log = dir.write("train.log", megatronLog(30));
  auto follower = LogFollower::open(log);
  ASSERT_TRUE(follower.ok());
  ASSERT_TRUE(follower->poll().ok());
  std::ofstream(log, std::ios::binary | std::ios::app)
      << " [2024-09-03 15:56:55] iteration       40/     30 | elapsed time per iteration (ms): "
         "abc |\n";
  auto update = follower->poll();
  ASSERT_FALSE(update.ok());
  EXPECT_NE(update.error().message.find("train.log:"), std::string::npos) << update.error().message;
  EXPECT_EQ(follower->latest()->run.records, 3);
}

// The Trainer rewrites trainer_state.json whole at each save.
std::string trainerState(int steps, int maxSteps) {
  std::string history;
  for (int step = 10; step <= steps; step += 10) {
    if (!history.empty()) history += ",\n";
    history += "    {\"epoch\": 0.1, \"grad_norm\": 1.5, \"learning_rate\": 1e-05, \"loss\": " +
               std::to_string(2.0 - 0.001 * step) + ", \"step\": " + std::to_string(step) + "}";
  }
  if (steps == maxSteps)
    history += ",\n    {\"epoch\": 1.0, \"step\": " + std::to_string(steps) +
               ", \"total_flos\": 1.0e15, \"train_loss\": 1.9, \"train_runtime\": " +
               std::to_string(steps * 1.5) +
               ", \"train_samples_per_second\": 10.0, "
               "\"train_steps_per_second\": 0.66}";
  return "{\n  \"global_step\": " + std::to_string(steps) + ",\n  \"log_history\": [\n" + history +
         "\n  ],\n  \"max_steps\": " + std::to_string(maxSteps) +
         ",\n  \"train_batch_size\": 8\n}\n";
}

TEST(LogFollower, ATrainerStateRewrittenWholeIsReadAgainEachTime) {
  ScratchDir dir;
  const fs::path state = dir.write("out/trainer_state.json", trainerState(10, 30));
  auto follower = LogFollower::open(dir.path() / "out");
  ASSERT_TRUE(follower.ok());
  ASSERT_TRUE(follower->poll().ok());
  ASSERT_TRUE(follower->latest().has_value());
  EXPECT_EQ(follower->latest()->run.records, 1);
  EXPECT_FALSE(follower->ended());

  auto unchanged = follower->poll();
  ASSERT_TRUE(unchanged.ok());
  EXPECT_FALSE(unchanged->grew) << "nothing changed, nothing is read";

  // A reader catching the rewrite half done waits for the next change.
  const std::string next = trainerState(20, 30);
  std::ofstream(state, std::ios::binary | std::ios::trunc) << next.substr(0, next.size() / 2);
  auto half = follower->poll();
  ASSERT_TRUE(half.ok());
  EXPECT_TRUE(half->problem.has_value());
  EXPECT_EQ(follower->latest()->run.records, 1);

  for (int steps : {20, 30}) {
    std::ofstream(state, std::ios::binary | std::ios::trunc) << trainerState(steps, 30);
    auto update = follower->poll();
    ASSERT_TRUE(update.ok());
    EXPECT_TRUE(update->grew);
    auto whole = importLog(dir.path() / "out");
    ASSERT_TRUE(whole.ok());
    expectSameImport(*follower->latest(), *whole);
  }
  EXPECT_EQ(follower->latest()->run.records, 3);
  EXPECT_TRUE(follower->ended()) << "the summary entry is the run's end";
}

TEST(LogFollower, BadOptionsAreRefusedAtOpen) {
  ImportOptions options;
  options.lossPattern = "loss=(";
  auto follower = LogFollower::open("/nonexistent", options);
  ASSERT_FALSE(follower.ok());
  EXPECT_EQ(follower.error().kind, ErrorKind::BadInput);
}

}  // namespace
}  // namespace tb::logs
