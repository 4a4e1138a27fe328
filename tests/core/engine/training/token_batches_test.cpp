// Batches are a pure function of (seed, step): resuming depends on it. The
// synthetic task must follow its rule, and text must split into a training
// part and a held-out part that never overlap.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <numeric>
#include <set>

#include "training/token_batches.hpp"

namespace {

using tb::engine::DataChoice;
using tb::engine::DataKind;
using tb::engine::ModelConfig;
using tb::engine::TokenBatches;

ModelConfig smallShape() {
  ModelConfig config;
  config.vocab = 300;
  config.seq = 16;
  config.batch = 3;
  return config;
}

std::filesystem::path writeText(const std::string& name, const std::string& content) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

TEST(TokenBatches, RandomBatchesDependOnlyOnSeedAndStep) {
  const auto a = TokenBatches::open({}, smallShape(), 7);
  const auto b = TokenBatches::open({}, smallShape(), 7);
  const auto c = TokenBatches::open({}, smallShape(), 8);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(a->trainBatch(5), b->trainBatch(5));
  EXPECT_NE(a->trainBatch(5), a->trainBatch(6));
  EXPECT_NE(a->trainBatch(5), c->trainBatch(5));
  const auto tokens = a->trainBatch(1);
  ASSERT_EQ(tokens.size(), 3U * 17U);
  std::set<std::int64_t> distinct(tokens.begin(), tokens.end());
  EXPECT_GT(distinct.size(), 30U);
  EXPECT_GE(*distinct.begin(), 0);
  EXPECT_LT(*distinct.rbegin(), 300);
}

TEST(TokenBatches, SyntheticRowsFollowTheAffineRule) {
  const auto batches = TokenBatches::open({DataKind::Synthetic, {}}, smallShape(), 11);
  ASSERT_TRUE(batches.ok());
  const std::int64_t a = batches->multiplier();
  const std::int64_t b = batches->increment();
  EXPECT_EQ(std::gcd(a, std::int64_t{300}), 1);  // every token has one successor
  const auto tokens = batches->trainBatch(3);
  for (std::size_t row = 0; row < 3; ++row) {
    for (std::size_t i = 1; i < 17; ++i) {
      const std::int64_t previous = tokens[row * 17 + i - 1];
      EXPECT_EQ(tokens[row * 17 + i], (a * previous + b) % 300);
    }
  }
}

TEST(TokenBatches, TextIsReadAsBytesWithTheLastTenthHeldOut) {
  std::string text;
  for (int i = 0; i < 450; ++i) text += static_cast<char>('a' + i % 26);
  text += std::string(50, 'Z');  // exactly the held-out tenth, recognisable
  const auto path = writeText("tb_engine_text.txt", text);
  const auto batches = TokenBatches::open({DataKind::TextFile, path}, smallShape(), 1);
  ASSERT_TRUE(batches.ok()) << batches.error().message;
  ASSERT_TRUE(batches->hasHeldOut());
  for (std::int64_t step = 1; step <= 20; ++step) {
    for (const auto token : batches->trainBatch(step)) {
      EXPECT_NE(token, 'Z');  // training never reads past the split (450 bytes)
      EXPECT_GE(token, 'a');
    }
  }
  const auto heldOut = batches->heldOutBatches(10);
  ASSERT_EQ(heldOut.size(), 1U);           // 50 held-out bytes: two rows of 17
  EXPECT_EQ(heldOut[0].size(), 2U * 17U);  // a partial last batch is kept
  EXPECT_EQ(heldOut[0].back(), 'Z');
  std::filesystem::remove(path);
}

TEST(TokenBatches, TextNeedsAByteVocabularyAndEnoughBytes) {
  const auto path = writeText("tb_engine_short.txt", "too short");
  ModelConfig narrow = smallShape();
  narrow.vocab = 100;
  const auto noBytes = TokenBatches::open({DataKind::TextFile, path}, narrow, 1);
  ASSERT_FALSE(noBytes.ok());
  EXPECT_NE(noBytes.error().message.find("vocab >= 256, got 100"), std::string::npos);
  const auto tooShort = TokenBatches::open({DataKind::TextFile, path}, smallShape(), 1);
  ASSERT_FALSE(tooShort.ok());
  EXPECT_NE(tooShort.error().message.find("has 9 bytes"), std::string::npos)
      << tooShort.error().message;
  const auto missing =
      TokenBatches::open({DataKind::TextFile, "/nonexistent/corpus.txt"}, smallShape(), 1);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("/nonexistent/corpus.txt"), std::string::npos);
  std::filesystem::remove(path);
}

TEST(TokenBatches, DataChoiceParsesKeywordsAndPaths) {
  EXPECT_EQ(tb::engine::parseDataChoice("random").kind, DataKind::Random);
  EXPECT_EQ(tb::engine::parseDataChoice("synthetic").kind, DataKind::Synthetic);
  const DataChoice file = tb::engine::parseDataChoice("./synthetic");
  EXPECT_EQ(file.kind, DataKind::TextFile);
  EXPECT_EQ(file.file, "./synthetic");
}

}  // namespace
