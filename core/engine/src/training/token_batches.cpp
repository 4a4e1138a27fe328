// Three token sources behind one shape. The synthetic task is an affine
// recurrence mod V with a multiplier coprime to V: every token has exactly one
// successor, so a model that learns the V-entry table drives the loss towards
// zero, far below the log V of guessing. Text is read as bytes (vocab >= 256)
// and its last tenth is held out.
#include "training/token_batches.hpp"

#include <algorithm>
#include <numeric>
#include <random>

#include "tb/common/atomic_file.hpp"

namespace tb::engine {
namespace {

// splitmix64: decorrelates nearby (seed, step) pairs before they seed mt19937.
std::uint64_t mix(std::uint64_t value) {
  value += 0x9E3779B97F4A7C15ULL;
  value = (value ^ (value >> 30)) * 0xBF58476D1CE4E5B9ULL;
  value = (value ^ (value >> 27)) * 0x94D049BB133111EBULL;
  return value ^ (value >> 31);
}

std::mt19937_64 streamFor(std::uint64_t seed, std::uint64_t stream, std::int64_t step) {
  return std::mt19937_64(mix(mix(seed ^ mix(stream)) + static_cast<std::uint64_t>(step)));
}

constexpr std::uint64_t kRuleStream = 1;
constexpr std::uint64_t kBatchStream = 2;
constexpr std::uint64_t kLengthStream = 3;
constexpr std::int64_t kByteVocab = 256;

}  // namespace

Expected<TokenBatches> TokenBatches::open(const DataChoice& data, const ModelConfig& model,
                                          std::uint64_t seed) {
  TokenBatches batches;
  batches.kind_ = data.kind;
  batches.vocab_ = model.vocab;
  batches.seq_ = model.seq;
  batches.batch_ = model.batch;
  batches.seed_ = seed;
  if (data.kind == DataKind::Synthetic) {
    auto rng = streamFor(seed, kRuleStream, 0);
    std::uniform_int_distribution<std::int64_t> pick(0, model.vocab - 1);
    do {
      batches.multiplier_ = pick(rng);
    } while (model.vocab > 1 && std::gcd(batches.multiplier_, model.vocab) != 1);
    batches.increment_ = pick(rng);
  }
  if (data.kind != DataKind::TextFile) return batches;

  if (model.vocab < kByteVocab) {
    return makeError(ErrorKind::BadInput, "text data is byte-level and needs vocab >= 256, got " +
                                              std::to_string(model.vocab));
  }
  auto content = readFile(data.file);
  if (!content) return content.error();
  const auto window = static_cast<std::size_t>(model.seq + 1);
  const std::size_t heldOut = std::max(content->size() / 10, window);
  if (content->size() < heldOut + window) {
    return makeError(ErrorKind::BadInput,
                     "text file " + data.file.string() + " has " + std::to_string(content->size()) +
                         " bytes; seq " + std::to_string(model.seq) + " needs at least " +
                         std::to_string(heldOut + window) + " (a training and a held-out window)");
  }
  batches.trainBytes_ = content->size() - heldOut;
  batches.text_ = std::make_shared<const std::string>(std::move(*content));
  return batches;
}

void TokenBatches::shard(int rank) { firstRow_ = static_cast<std::int64_t>(rank) * batch_; }

std::vector<std::int64_t> TokenBatches::trainBatch(std::int64_t step) const {
  const auto rowLength = static_cast<std::size_t>(seq_ + 1);
  std::vector<std::int64_t> tokens;
  tokens.reserve(static_cast<std::size_t>(batch_) * rowLength);
  auto rng = streamFor(seed_, kBatchStream, step);
  std::uniform_int_distribution<std::int64_t> token(0, vocab_ - 1);
  // The rows before this rank's are drawn and dropped: each row is drawn
  // from the one stream of the step, in order.
  const std::int64_t lastRow = firstRow_ + batch_;
  for (std::int64_t row = 0; row < lastRow; ++row) {
    if (row == firstRow_) tokens.clear();
    switch (kind_) {
      case DataKind::Random:
        for (std::size_t i = 0; i < rowLength; ++i) tokens.push_back(token(rng));
        break;
      case DataKind::Synthetic: {
        std::int64_t current = token(rng);
        for (std::size_t i = 0; i < rowLength; ++i) {
          tokens.push_back(current);
          current = (multiplier_ * current + increment_) % vocab_;
        }
        break;
      }
      case DataKind::TextFile: {
        std::uniform_int_distribution<std::size_t> start(0, trainBytes_ - rowLength);
        const std::size_t offset = start(rng);
        for (std::size_t i = 0; i < rowLength; ++i) {
          tokens.push_back(static_cast<unsigned char>((*text_)[offset + i]));
        }
        break;
      }
    }
  }
  return tokens;
}

std::vector<std::vector<std::int64_t>> TokenBatches::heldOutBatches(std::size_t most) const {
  std::vector<std::vector<std::int64_t>> result;
  if (kind_ != DataKind::TextFile) return result;
  const auto rowLength = static_cast<std::size_t>(seq_ + 1);
  std::size_t offset = trainBytes_;
  while (result.size() < most && offset + rowLength <= text_->size()) {
    std::vector<std::int64_t> tokens;
    for (std::int64_t row = 0; row < batch_ && offset + rowLength <= text_->size(); ++row) {
      for (std::size_t i = 0; i < rowLength; ++i) {
        tokens.push_back(static_cast<unsigned char>((*text_)[offset + i]));
      }
      offset += rowLength;
    }
    if (tokens.empty()) break;
    result.push_back(std::move(tokens));
  }
  return result;
}

std::int64_t stepSequenceLength(std::uint64_t seed, std::int64_t step, std::int64_t shortest,
                                std::int64_t longest) {
  if (shortest >= longest) return longest;
  auto rng = streamFor(seed, kLengthStream, step);
  return std::uniform_int_distribution<std::int64_t>(shortest, longest)(rng);
}

}  // namespace tb::engine
