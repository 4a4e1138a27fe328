// Training tokens as a pure function of (seed, step): a resumed run draws
// exactly the batches the uninterrupted run would have, with no generator
// state to save. Plain integers, no tensors, so this is tested without torch.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tb/common/expected.hpp"
#include "tb/engine/model.hpp"
#include "tb/engine/run_config.hpp"

namespace tb::engine {

/// The token stream of a run; each batch is batch × (seq + 1) tokens, row-major
/// (inputs are the first seq of a row, targets the last seq).
class TokenBatches {
 public:
  /// Reads the text file if there is one; the error names the file or the field.
  [[nodiscard]] static Expected<TokenBatches> open(const DataChoice& data, const ModelConfig& model,
                                                   std::uint64_t seed);

  /// This process as rank `rank` of a data-parallel group, each rank with
  /// the model's batch: it trains rows [rank·batch, (rank+1)·batch) of the
  /// global batch one process with all the rows would train, so N ranks
  /// train exactly what one would.
  void shard(int rank);

  [[nodiscard]] std::vector<std::int64_t> trainBatch(std::int64_t step) const;

  /// Consecutive windows of the held-out split (text data only, else none);
  /// the last batch may hold fewer rows.
  [[nodiscard]] std::vector<std::vector<std::int64_t>> heldOutBatches(std::size_t most) const;

  [[nodiscard]] bool hasHeldOut() const { return kind_ == DataKind::TextFile; }

  /// The synthetic rule next = (multiplier·prev + increment) mod vocab.
  [[nodiscard]] std::int64_t multiplier() const { return multiplier_; }
  [[nodiscard]] std::int64_t increment() const { return increment_; }

 private:
  TokenBatches() = default;

  DataKind kind_ = DataKind::Random;
  std::int64_t vocab_ = 0;
  std::int64_t seq_ = 0;
  std::int64_t batch_ = 0;     // rows of this process's batch
  std::int64_t firstRow_ = 0;  // of the global batch (shard)
  std::uint64_t seed_ = 0;
  std::int64_t multiplier_ = 1;
  std::int64_t increment_ = 0;
  std::shared_ptr<const std::string> text_;  // shared: batches are cheap to copy
  std::size_t trainBytes_ = 0;               // text_[0, trainBytes_) trains, the rest is held out
};

/// The sequence length of `step` in a run that varies it (--seq-min/--seq-max):
/// uniform in [shortest, longest], a pure function of (seed, step) like the
/// batches, so a resumed run sees the same lengths.
[[nodiscard]] std::int64_t stepSequenceLength(std::uint64_t seed, std::int64_t step,
                                              std::int64_t shortest, std::int64_t longest);

}  // namespace tb::engine
