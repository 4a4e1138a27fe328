// `trainbench import --follow` against a log this test writes while the
// command runs: an update per new record (one JSON object per line), the
// cluster file rewritten, the end of the run ending the command, and
// SIGTERM ending it with exit 0 and the last update kept.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tb/common/stop_token.hpp"
#include "tb/common/subprocess.hpp"

namespace tb::cli::test {
namespace {

namespace fs = std::filesystem;

// A Megatron-LM run of `planned` iterations: its argument dump, then one
// iteration line per 10.
std::vector<std::string> megatronPieces(int planned) {
  std::vector<std::string> pieces = {
      "------------------------ arguments ------------------------\n"
      "  global_batch_size ............................... 64\n"
      "  seq_length ...................................... 4096\n"
      "  train_iters ..................................... " +
      std::to_string(planned) +
      "\n"
      "  world_size ...................................... 8\n"
      "-------------------- end of arguments ---------------------\n"};
  for (int iteration = 10; iteration <= 50; iteration += 10) {
    std::ostringstream line;
    line << " [2024-09-03 15:54:54] iteration " << iteration << "/ " << planned
         << " | consumed samples: " << iteration * 64
         << " | elapsed time per iteration (ms): 1500.0 | throughput per GPU (TFLOP/s/GPU): 400.0"
         << " | learning rate: 3.000000E-04 | global batch size:    64 | lm loss: "
         << 10.0 - iteration * 0.01 << " | loss scale: 1.0 | grad norm: 1.250 | "
         << "number of skipped iterations:   0 | number of nan iterations:   0 |\n";
    // Written in two parts, the way a pipe flushes: the follower must not
    // take the first half for a line.
    const std::string text = line.str();
    pieces.push_back(text.substr(0, text.size() / 2));
    pieces.push_back(text.substr(text.size() / 2));
  }
  return pieces;
}

class CliImportFollow : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tb-cli-follow-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ / "train.log");
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string read(const fs::path& file) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  /// The command's output, one JSON object per line.
  [[nodiscard]] std::vector<nlohmann::json> events() const {
    std::vector<nlohmann::json> parsed;
    std::istringstream lines(read(dir_ / "follow.out"));
    for (std::string line; std::getline(lines, line);) {
      const auto event = nlohmann::json::parse(line, nullptr, false);
      EXPECT_FALSE(event.is_discarded()) << "not one JSON object per line: " << line;
      if (!event.is_discarded()) parsed.push_back(event);
    }
    return parsed;
  }

  /// Runs `import --follow --json` while `onTick` writes; a 60 s deadline
  /// stops it.
  WatchedOutcome follow(const std::function<void(const StopSource&)>& onTick) {
    WatchOptions options;
    options.logFile = dir_ / "follow.out";
    options.tick = std::chrono::milliseconds(20);
    const StopSource stop;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    auto outcome = runWatchedProcess(
        {TRAINBENCH_EXE, "import", (dir_ / "train.log").string(), "--label", "AC2", "--follow",
         "--interval", "0.05", "--json", "--out", (dir_ / "cluster.json").string()},
        options, stop.token(), [&] {
          if (std::chrono::steady_clock::now() > deadline) stop.requestStop();
          onTick(stop);
        });
    EXPECT_TRUE(outcome.ok());
    return outcome ? *outcome : WatchedOutcome{};
  }

  /// Appends the next piece every few ticks, once the command is reading
  /// (it has said it waits for a line of a known format in the empty file).
  void appendPieces(const std::vector<std::string>& pieces, std::size_t& next, int& ticks) {
    if (next >= pieces.size() || ++ticks % 4 != 0) return;
    if (next == 0 && read(dir_ / "follow.out").find("waiting") == std::string::npos) return;
    std::ofstream(dir_ / "train.log", std::ios::app) << pieces[next++];
  }

  fs::path dir_;
};

TEST_F(CliImportFollow, EachNewRecordIsAnUpdateAndTheRunsEndEndsIt) {
  const std::vector<std::string> pieces = megatronPieces(50);
  std::size_t next = 0;
  int ticks = 0;
  const WatchedOutcome outcome =
      follow([&](const StopSource&) { appendPieces(pieces, next, ticks); });
  EXPECT_EQ(outcome.exitCode, 0) << read(dir_ / "follow.out");
  EXPECT_FALSE(outcome.stopRequested) << "the run's end should have ended it";

  std::int64_t lastStep = 0;
  int updates = 0;
  const std::vector<nlohmann::json> seen = events();
  ASSERT_FALSE(seen.empty());
  for (const auto& event : seen) {
    if (event.value("event", "") != "update") continue;
    ++updates;
    EXPECT_GE(event["last_step"].get<std::int64_t>(), lastStep) << event.dump();
    lastStep = event["last_step"].get<std::int64_t>();
    EXPECT_EQ(event["label"], "AC2");
  }
  EXPECT_GE(updates, 2) << "records arrived over time, so several updates";
  EXPECT_EQ(lastStep, 50);
  EXPECT_EQ(seen.back()["event"], "end");
  EXPECT_EQ(seen.back()["reason"], "every run ended");

  const auto cluster = nlohmann::json::parse(read(dir_ / "cluster.json"), nullptr, false);
  ASSERT_FALSE(cluster.is_discarded()) << read(dir_ / "cluster.json");
  EXPECT_NE(cluster.dump().find("AC2"), std::string::npos);
}

TEST_F(CliImportFollow, SigtermEndsItWithExitZeroAndTheLastUpdateKept) {
  const std::vector<std::string> pieces = megatronPieces(500);  // never reaches its end
  std::size_t next = 0;
  int ticks = 0;
  const WatchedOutcome outcome = follow([&](const StopSource& stop) {
    appendPieces(pieces, next, ticks);
    if (next == pieces.size() &&
        read(dir_ / "follow.out").find("\"last_step\":50") != std::string::npos)
      stop.requestStop();
  });
  EXPECT_TRUE(outcome.stopRequested);
  EXPECT_EQ(outcome.exitCode, 0) << read(dir_ / "follow.out");
  const std::vector<nlohmann::json> seen = events();
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back()["reason"], "SIGTERM");
  EXPECT_TRUE(fs::exists(dir_ / "cluster.json")) << "--out keeps the last update";
}

}  // namespace
}  // namespace tb::cli::test
