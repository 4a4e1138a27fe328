// The runtime switches as `--runtime` spells them, and the per-step sequence
// lengths of --seq-min/--seq-max: plain functions, checked without training.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "tb/engine/run_config.hpp"
#include "training/token_batches.hpp"

namespace {

using tb::engine::parseRuntime;
using tb::engine::RuntimeOptions;

RuntimeOptions fromBits(unsigned bits) {
  RuntimeOptions options;
  options.threads = (bits & 1U) != 0;
  options.matmul = (bits & 2U) != 0;
  options.lazySync = (bits & 4U) != 0;
  options.flatGradients = (bits & 8U) != 0;
  options.gqaInPlace = (bits & 16U) != 0;
  options.keepMemory = (bits & 32U) != 0;
  return options;
}

TEST(RuntimeOptions, EveryCombinationRoundTripsThroughItsShortestSpelling) {
  for (unsigned bits = 0; bits < 64; ++bits) {
    const RuntimeOptions options = fromBits(bits);
    const std::string text = tb::engine::toString(options);
    const auto parsed = parseRuntime(text);
    ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.error().message;
    EXPECT_EQ(*parsed, options) << text;
  }
}

TEST(RuntimeOptions, BasesAndSwitchesSpellAsDocumented) {
  EXPECT_EQ(tb::engine::toString(tb::engine::tunedRuntime()), "tuned");
  EXPECT_EQ(tb::engine::toString(tb::engine::stockRuntime()), "stock");
  EXPECT_EQ(tb::engine::RunConfig{}.runtime, tb::engine::tunedRuntime());
  const auto oneOff = parseRuntime("tuned,-matmul");
  ASSERT_TRUE(oneOff.ok());
  EXPECT_FALSE(oneOff->matmul);
  EXPECT_TRUE(oneOff->threads && oneOff->lazySync && oneOff->flatGradients && oneOff->gqaInPlace &&
              oneOff->keepMemory);
  const auto oneOn = parseRuntime("stock,+gqa,+flat-grads,+alloc");
  ASSERT_TRUE(oneOn.ok());
  EXPECT_TRUE(oneOn->gqaInPlace && oneOn->flatGradients && oneOn->keepMemory);
  EXPECT_FALSE(oneOn->threads || oneOn->matmul || oneOn->lazySync);
}

TEST(RuntimeOptions, BadWordsAreNamedInTheError) {
  for (const std::string bad : {"fast", "tuned,matmul", "tuned,+warp", "tuned,", "", "stock,-"}) {
    const auto parsed = parseRuntime(bad);
    ASSERT_FALSE(parsed.ok()) << "'" << bad << "' was accepted";
    EXPECT_EQ(parsed.error().kind, tb::ErrorKind::BadInput) << bad;
  }
  EXPECT_NE(parseRuntime("tuned,+warp").error().message.find("warp"), std::string::npos);
  EXPECT_NE(parseRuntime("fast").error().message.find("fast"), std::string::npos);
}

TEST(StepSequenceLength, StaysInRangeReachesBothEndsAndRepeatsForTheSameStep) {
  std::set<std::int64_t> seen;
  for (std::int64_t step = 1; step <= 400; ++step) {
    const std::int64_t length = tb::engine::stepSequenceLength(9, step, 5, 12);
    EXPECT_GE(length, 5);
    EXPECT_LE(length, 12);
    EXPECT_EQ(length, tb::engine::stepSequenceLength(9, step, 5, 12));
    seen.insert(length);
  }
  EXPECT_EQ(seen.size(), 8U);
  EXPECT_EQ(tb::engine::stepSequenceLength(9, 3, 64, 64), 64);
}

TEST(StepSequenceLength, DependsOnTheSeed) {
  int differing = 0;
  for (std::int64_t step = 1; step <= 50; ++step) {
    differing += tb::engine::stepSequenceLength(1, step, 2, 1000) !=
                         tb::engine::stepSequenceLength(2, step, 2, 1000)
                     ? 1
                     : 0;
  }
  EXPECT_GT(differing, 40);
}

}  // namespace
