// Validation is never a step record; where a file shows that it ran, the
// import says so and how the format's times stand to it (Megatron-LM stops
// its interval timer, NeMo times training steps alone, torchtitan's next
// window holds it, metrics.csv times nothing of it).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "line_feed_support.hpp"
#include "tb/logs/log_import.hpp"

namespace tb::logs {
namespace {

using test::ScratchDir;

std::string hintWith(const ImportedLog& log, const std::string& part) {
  const auto found = std::find_if(log.hints.begin(), log.hints.end(), [&](const std::string& h) {
    return h.find(part) != std::string::npos;
  });
  return found == log.hints.end() ? std::string() : *found;
}

std::string joined(const std::vector<std::string>& hints) {
  std::string all;
  for (const std::string& hint : hints) all += hint + "\n";
  return all;
}

TEST(ValidationHint, TorchtitanSaysItsValidationFallsInTheNextWindow) {
  auto log =
      importLog(std::string(TB_LOG_FIXTURES) + "/torchtitan/torchtitan_2025-06_rank0_tflops.log");
  ASSERT_TRUE(log.ok()) << log.error().message;
  const std::string hint = hintWith(*log, "validate step:");
  EXPECT_NE(hint.find("1 validation line "), std::string::npos) << joined(log->hints);
  EXPECT_NE(hint.find("window of the next step record"), std::string::npos) << hint;
}

TEST(ValidationHint, NemoSaysItsStepTimingLeavesValidationOut) {
  auto log = importLog(std::string(TB_LOG_FIXTURES) + "/nemo/nemo2_console.log");
  ASSERT_TRUE(log.ok()) << log.error().message;
  const std::string hint = hintWith(*log, "Validation: iteration");
  EXPECT_NE(hint.find("train_step_timing times each training step alone"), std::string::npos)
      << joined(log->hints);
}

TEST(ValidationHint, MegatronSaysItsIntervalTimerStops) {
  ScratchDir dir;
  const std::string line =
      " [2024-09-03 15:54:54] iteration       10/      20 | consumed samples:        640 | "
      "elapsed time per iteration (ms): 1500.0 | throughput per GPU (TFLOP/s/GPU): 400.0 | "
      "learning rate: 3.000000E-04 | global batch size:    64 | lm loss: 9.900000E+00 | "
      "loss scale: 1.0 | grad norm: 1.250 | number of skipped iterations:   0 | number of nan "
      "iterations:   0 |\n";
  const std::string eval =
      "-----------------------------------------------------------------------------------\n"
      " validation loss at iteration 10 | lm loss value: 9.800000E+00 | lm loss PPL: "
      "1.8E+04 | \n"
      "-----------------------------------------------------------------------------------\n";
  auto log = importLog(dir.write("train.log", line + eval + eval));
  ASSERT_TRUE(log.ok()) << log.error().message;
  const std::string hint = hintWith(*log, "validation loss at iteration");
  EXPECT_NE(hint.find("2 validation lines "), std::string::npos) << joined(log->hints);
  EXPECT_NE(hint.find("stops its interval timer"), std::string::npos) << hint;
  EXPECT_EQ(log->run.records, 1);
}

TEST(ValidationHint, LightningSaysItsValidationRowsAreNotTimed) {
  ScratchDir dir;
  auto log = importLog(dir.write("metrics.csv",
                                 "epoch,step,train_loss,val_loss\n"
                                 "0,9,2.5,\n"
                                 "0,19,2.4,\n"
                                 "0,19,,2.6\n"));
  ASSERT_TRUE(log.ok()) << log.error().message;
  const std::string hint = hintWith(*log, "rows with no training value");
  EXPECT_NE(hint.find("1 validation line "), std::string::npos) << joined(log->hints);
  EXPECT_EQ(log->run.records, 2);
}

TEST(ValidationHint, NoValidationNoHint) {
  auto log = importLog(std::string(TB_LOG_FIXTURES) + "/megatron/core_r0.8_log_throughput.log");
  ASSERT_TRUE(log.ok());
  EXPECT_TRUE(hintWith(*log, "validation").empty()) << joined(log->hints);
}

}  // namespace
}  // namespace tb::logs
