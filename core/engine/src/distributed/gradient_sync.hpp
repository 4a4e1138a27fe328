// Data-parallel gradient averaging as PyTorch's DDP Reducer does it, on the
// engine's own buffers: gradients are cut into buckets (the first 1 MiB, then
// 25 MiB by default), each bucket's all-reduce starts from an autograd hook
// the moment its last gradient is accumulated, while backward goes on, and
// finish() waits for them all before clipping and the optimizer see the
// gradients. Every rank computes the same plan, so every rank starts the
// same all-reduces in the same order (DDP's rule: a mismatch hangs or sums
// the wrong bytes).
//
// With the tuned runtime's flat gradient buffer a bucket is a slice of that
// buffer (DDP's gradient_as_bucket_view); with per-tensor gradients (the
// stock runtime) each gradient is copied into a communication buffer when it
// is ready and copied back after the sum, as DDP does by default.
//
// Beyond DDP: the token embedding's gradient is zero outside the rows the
// step's tokens select, and it is ready only when backward ends, so DDP
// sends all of it in the one bucket nothing overlaps. Here the ranks agree
// on the rows any of them touched (a [vocab] count summed while forward
// runs) and sum just those rows: for `small` about 40 % of the table, for a
// 128k vocabulary with a few thousand tokens a rank, a few percent. The sum
// of every row is the same as the dense one's (a + b for two ranks, bit for
// bit); the rows nobody touched are zero on every rank and stay zero.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "distributed/communicator.hpp"
#include "model/decoder.hpp"

namespace tb::engine {

/// Where one parameter's gradient sits in the buffer that is reduced.
struct GradientSpan {
  std::int64_t offset = 0;  ///< elements from the buffer's start
  std::int64_t numel = 0;
  std::int64_t readyOrder = 0;  ///< when backward produces it: 0 first
};

/// One all-reduce: a contiguous range of the buffer and the parameters in it.
struct Bucket {
  std::int64_t offset = 0;
  std::int64_t numel = 0;
  std::vector<std::size_t> parameters;  ///< indices into the spans
};

/// Buckets of contiguous spans, formed in the order backward produces them
/// (readyOrder): the first up to `firstCapBytes` (or capBytes if that is
/// smaller), the rest up to `capBytes` of float32; as in DDP, a bucket takes
/// parameters until it holds at least its cap, so one larger than the cap
/// closes the bucket it joins. capBytes 0 means one bucket of everything
/// (the spans tile the buffer). Returned in launch order: by the latest
/// readyOrder among a bucket's parameters.
[[nodiscard]] std::vector<Bucket> planBuckets(const std::vector<GradientSpan>& spans,
                                              std::int64_t firstCapBytes, std::int64_t capBytes);

/// DDP's defaults (reducer.hpp: kDefaultFirstBucketBytes, kDefaultBucketBytesCap).
inline constexpr std::int64_t kFirstBucketBytes = 1024 * 1024;
inline constexpr std::int64_t kDefaultBucketBytes = 25 * 1024 * 1024;

class GradientSync {
 public:
  /// `parameters` in the model's definition order (namedParameters); each
  /// must be a leaf. `flatGradients`: the buffer their .grad() views live in
  /// (FlatParameters), or undefined for per-tensor gradients.
  /// `lookupTable`: the index of the token embedding, whose rows are
  /// exchanged as described above (then beginStep must be given the tokens),
  /// or none to sum it densely in the buckets like any other gradient.
  GradientSync(Communicator& communicator, const std::vector<NamedTensor>& parameters,
               at::Tensor flatGradients, std::int64_t bucketBytes,
               std::optional<std::size_t> lookupTable = std::nullopt);
  ~GradientSync();
  GradientSync(const GradientSync&) = delete;
  GradientSync& operator=(const GradientSync&) = delete;

  /// Before each forward: names the step in errors, forgets the last one,
  /// and with a lookup table starts agreeing on the rows `tokens` (this
  /// rank's input ids, any shape) touch.
  void beginStep(std::int64_t step, const at::Tensor& tokens = {});
  /// After backward: starts the buckets not yet started, waits for all of
  /// them, and leaves every gradient the sum over the ranks (the mean when,
  /// as the training loop does, each rank's backward was seeded with
  /// 1 / world size). Throws CollectiveError.
  void finish();

  [[nodiscard]] const std::vector<Bucket>& buckets() const { return buckets_; }
  /// Buckets started from a hook during the last backward (the overlapped ones).
  [[nodiscard]] std::size_t startedDuringBackward() const { return startedDuringBackward_; }
  /// Rows of the lookup table summed in the last step (0 without one).
  [[nodiscard]] std::int64_t tableRowsSent() const { return tableRowsSent_; }

  /// Called by the autograd hook of parameter `index` once its gradient is
  /// accumulated.
  void gradientReady(std::size_t index);

 private:
  void startReadyBuckets();
  void start(std::size_t bucket);
  /// After every bucket, in the same place on every rank: the table's rows.
  void startTableRows();

  struct Hooked;
  Communicator* communicator_;
  std::vector<NamedTensor> parameters_;
  std::vector<GradientSpan> spans_;
  std::vector<Bucket> buckets_;
  std::vector<std::size_t> bucketOf_;  ///< per parameter
  at::Tensor buffer_;                  ///< what is reduced
  bool copies_ = false;                ///< per-tensor gradients: copied in and out
  std::vector<std::unique_ptr<Hooked>> hooks_;
  // Per step:
  std::int64_t step_ = 0;
  std::vector<bool> ready_;
  std::vector<std::size_t> waitingOn_;  ///< per bucket: parameters not yet ready
  std::size_t nextStart_ = 0;
  std::size_t startedDuringBackward_ = 0;
  bool inBackward_ = false;
  std::vector<std::unique_ptr<PendingCollective>> pending_;
  // The lookup table's rows, per step:
  std::optional<std::size_t> table_;
  at::Tensor touched_;  ///< [vocab]: how many ranks' tokens hit each row
  std::unique_ptr<PendingCollective> touchedSum_;
  at::Tensor tableRows_;  ///< the rows summed, ascending
  at::Tensor tableSum_;   ///< [rows, dim]: those rows of the gradient, summed
  bool tableStarted_ = false;
  std::int64_t tableRowsSent_ = 0;
};

}  // namespace tb::engine
