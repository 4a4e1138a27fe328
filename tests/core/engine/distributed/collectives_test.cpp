// The data-parallel layer in one process, ranks as threads (as PyTorch's own
// ProcessGroupGloo tests run them): the bucket plan, the Gloo communicator
// over a real TCPStore hosted the way the launcher hosts it, the bucketed
// gradient average against the plain mean, and a peer that leaves mid-run.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <chrono>
#include <functional>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include "distributed/c10d_communicator.hpp"
#include "distributed/gradient_sync.hpp"
#include "distributed/nccl_communicator.hpp"
#include "tb/engine/rendezvous_store.hpp"

namespace {

using tb::engine::Bucket;
using tb::engine::Communicator;
using tb::engine::GradientSpan;
using tb::engine::GradientSync;
using tb::engine::NamedTensor;

constexpr std::int64_t kMiB = 1024 * 1024;
constexpr std::int64_t kFloatsPerMiB = kMiB / 4;

// ---- the plan ------------------------------------------------------------

/// Spans laid out in definition order, produced by backward in reverse.
std::vector<GradientSpan> definitionOrder(const std::vector<std::int64_t>& sizes) {
  std::vector<GradientSpan> spans;
  std::int64_t offset = 0;
  const auto count = static_cast<std::int64_t>(sizes.size());
  for (std::int64_t i = 0; i < count; ++i) {
    spans.push_back({offset, sizes[static_cast<std::size_t>(i)], count - 1 - i});
    offset += sizes[static_cast<std::size_t>(i)];
  }
  return spans;
}

void expectPartition(const std::vector<Bucket>& buckets, const std::vector<GradientSpan>& spans) {
  std::set<std::size_t> seen;
  std::int64_t covered = 0;
  for (const Bucket& bucket : buckets) {
    std::int64_t inside = 0;
    for (const std::size_t index : bucket.parameters) {
      EXPECT_TRUE(seen.insert(index).second) << "parameter " << index << " in two buckets";
      EXPECT_GE(spans[index].offset, bucket.offset);
      EXPECT_LE(spans[index].offset + spans[index].numel, bucket.offset + bucket.numel);
      inside += spans[index].numel;
    }
    EXPECT_EQ(inside, bucket.numel) << "a bucket is exactly its parameters, contiguous";
    covered += bucket.numel;
  }
  EXPECT_EQ(seen.size(), spans.size());
  std::int64_t total = 0;
  for (const GradientSpan& span : spans) total += span.numel;
  EXPECT_EQ(covered, total);
}

TEST(BucketPlan, FirstBucketIsSmallThenCapsCloseBucketsAsDdpDoes) {
  // 8 parameters of 0.5 MiB: backward produces the last one first.
  const auto spans = definitionOrder(std::vector<std::int64_t>(8, kFloatsPerMiB / 2));
  const auto buckets = tb::engine::planBuckets(spans, 1 * kMiB, 2 * kMiB);
  expectPartition(buckets, spans);
  ASSERT_EQ(buckets.size(), 3U);  // 1 MiB, then 2 MiB, and the 1 MiB left
  EXPECT_EQ(buckets[0].numel, kFloatsPerMiB);
  EXPECT_EQ(buckets[0].parameters, (std::vector<std::size_t>{7, 6}));
  EXPECT_EQ(buckets[1].numel, 2 * kFloatsPerMiB);
  EXPECT_EQ(buckets[2].parameters, (std::vector<std::size_t>{1, 0}))
      << "the first parameter is produced last";
}

TEST(BucketPlan, ZeroCapIsOneBucketOfEverything) {
  const auto spans = definitionOrder({10, 20, 30});
  const auto buckets = tb::engine::planBuckets(spans, kMiB, 0);
  ASSERT_EQ(buckets.size(), 1U);
  EXPECT_EQ(buckets[0].offset, 0);
  EXPECT_EQ(buckets[0].numel, 60);
}

TEST(BucketPlan, AParameterLargerThanTheCapClosesTheBucketItJoins) {
  const auto spans = definitionOrder({100, 3 * kFloatsPerMiB, 100});
  const auto buckets = tb::engine::planBuckets(spans, kMiB, kMiB);
  expectPartition(buckets, spans);
  ASSERT_EQ(buckets.size(), 2U);
  EXPECT_EQ(buckets[0].parameters, (std::vector<std::size_t>{2, 1}));
  EXPECT_EQ(buckets[1].parameters, (std::vector<std::size_t>{0}));
}

TEST(BucketPlan, BucketsLaunchInTheOrderBackwardCompletesThem) {
  // A layout that is not the production order (a flat buffer with its 1-D
  // parameters at the end): launch order still follows readiness.
  std::vector<GradientSpan> spans{{0, 100, 3}, {100, 100, 0}, {200, 100, 2}, {300, 100, 1}};
  const auto buckets = tb::engine::planBuckets(spans, 400, 400);  // 100 floats a bucket
  ASSERT_EQ(buckets.size(), 4U);
  std::vector<std::size_t> order;
  for (const Bucket& bucket : buckets) order.push_back(bucket.parameters.front());
  EXPECT_EQ(order, (std::vector<std::size_t>{1, 3, 2, 0}));
}

// ---- the communicator ----------------------------------------------------

constexpr std::chrono::milliseconds kTimeout{20000};

/// Runs `body(rank, communicator)` on `world` threads joined through a store
/// hosted as the launcher hosts it.
void onRanks(int world, const std::function<void(int, Communicator&)>& body,
             std::chrono::milliseconds timeout = kTimeout) {
  auto store = tb::engine::RendezvousStore::host(0, timeout);
  ASSERT_TRUE(store) << store.error().message;
  std::vector<std::thread> threads;
  std::vector<std::string> failures(static_cast<std::size_t>(world));
  for (int rank = 0; rank < world; ++rank) {
    threads.emplace_back([&, rank] {
      tb::engine::GroupSettings settings;
      settings.launch.rank = rank;
      settings.launch.localRank = rank;
      settings.launch.worldSize = world;
      settings.launch.localWorldSize = world;
      settings.launch.masterPort = store->port();
      settings.launch.useAgentStore = true;
      settings.timeout = timeout;
      settings.interfaces = {"lo"};
      auto joined = tb::engine::joinGlooGroup(settings);
      if (!joined) {
        failures[static_cast<std::size_t>(rank)] = joined.error().message;
        return;
      }
      try {
        body(rank, **joined);
      } catch (const std::exception& error) {
        failures[static_cast<std::size_t>(rank)] = error.what();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int rank = 0; rank < world; ++rank) {
    EXPECT_EQ(failures[static_cast<std::size_t>(rank)], "") << "rank " << rank;
  }
}

TEST(GlooCommunicator, SumsASliceOfAFlatBufferInPlaceAndLeavesTheRest) {
  onRanks(2, [](int rank, Communicator& group) {
    at::Tensor flat = at::arange(10, at::kFloat) * static_cast<float>(rank + 1);
    group.allReduceSum(flat.narrow(0, 2, 4), "a slice")->wait();
    const at::Tensor expected = at::arange(10, at::kFloat) * static_cast<float>(rank + 1);
    expected.narrow(0, 2, 4).copy_(at::arange(2, 6, at::kFloat) * 3.0F);
    EXPECT_TRUE(at::equal(flat, expected)) << "rank " << rank << ": " << flat;
  });
}

TEST(GlooCommunicator, BroadcastsFromRankZeroAndSumsIntegers) {
  onRanks(3, [](int rank, Communicator& group) {
    at::Tensor weights = at::full({5}, static_cast<float>(rank));
    group.broadcast(weights, 0, "weights");
    EXPECT_TRUE(at::equal(weights, at::zeros({5}))) << "rank " << rank;
    at::Tensor peaks = at::zeros({3}, at::kLong);
    peaks[rank] = 1000 + rank;
    group.allReduceSum(peaks, "peaks")->wait();
    EXPECT_EQ(peaks[2].item<std::int64_t>(), 1002);
    group.barrier("the end");
  });
}

TEST(GlooCommunicator, RanksAgreeOnFactsThroughTheStore) {
  onRanks(2, [](int rank, Communicator& group) {
    if (rank == 0) group.publish("run_dir", "/runs/x");
    EXPECT_EQ(group.fetch("run_dir"), "/runs/x");
  });
}

TEST(GlooCommunicator, APeerThatLeavesEndsTheWaitWithTheOperationAndTheSilentRank) {
  const auto start = std::chrono::steady_clock::now();
  std::string message;
  onRanks(
      2,
      [&](int rank, Communicator& group) {
        at::Tensor value = at::ones({4});
        group.allReduceSum(value, "warm-up")->wait();
        if (rank == 1) return;  // leaves: its group closes its connections
        try {
          std::this_thread::sleep_for(std::chrono::milliseconds(200));
          group.allReduceSum(value, "all-reduce of gradient bucket 0 of step 9")->wait();
        } catch (const tb::engine::CollectiveError& error) {
          message = error.what();
        }
      },
      std::chrono::milliseconds(3000));
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  EXPECT_NE(message.find("all-reduce of gradient bucket 0 of step 9 failed on rank 0"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("rank 1 did not report"), std::string::npos) << message;
  EXPECT_LT(took.count(), 3.0 + 2.0 + 3.0) << "the deadline, the report window and a margin";
}

TEST(GlooCommunicator, AStoreNobodyHostsIsAnErrorNamingItsAddress) {
  tb::engine::GroupSettings settings;
  settings.launch.rank = 1;
  settings.launch.worldSize = 2;
  settings.launch.masterPort = 1;  // nothing listens on a privileged port here
  settings.launch.useAgentStore = true;
  settings.timeout = std::chrono::milliseconds(1500);
  const auto start = std::chrono::steady_clock::now();
  auto joined = tb::engine::joinGlooGroup(settings);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(joined);
  EXPECT_NE(joined.error().message.find("127.0.0.1:1"), std::string::npos)
      << joined.error().message;
  EXPECT_LT(took.count(), 10.0);
}

TEST(NcclCommunicator, WithoutAGpuOrWithoutNcclJoiningIsAClearError) {
  auto store = tb::engine::RendezvousStore::host(0, std::chrono::milliseconds(5000));
  ASSERT_TRUE(store) << store.error().message;
  tb::engine::GroupSettings settings;
  settings.launch.masterPort = store->port();
  settings.launch.useAgentStore = true;
  settings.timeout = std::chrono::milliseconds(5000);
  settings.interfaces = {"lo"};
  auto joined = tb::engine::joinNcclGroup(settings);
  if (joined) GTEST_SKIP() << "a GPU is here: tests/gpu checks NCCL on it";
  const std::string& message = joined.error().message;
  EXPECT_NE(message.find("rank 0"), std::string::npos) << message;
  if (tb::engine::ncclBuilt()) {
    EXPECT_NE(message.find("no CUDA device"), std::string::npos) << message;
  } else {
    EXPECT_NE(message.find("TB_WITH_NCCL"), std::string::npos) << message;
  }
}

// ---- the bucketed average ------------------------------------------------

/// Two leaves and a loss whose gradients differ per rank; `flat` puts both
/// gradients in one buffer as FlatParameters does.
struct ToyModel {
  at::Tensor storage, gradients;
  std::vector<NamedTensor> parameters;

  ToyModel(bool flat, std::int64_t small, std::int64_t large) {
    if (!flat) {
      parameters = {{"a", at::ones({small}).requires_grad_(true)},
                    {"b", at::ones({large}).requires_grad_(true)}};
      return;
    }
    storage = at::ones({small + large});
    gradients = at::zeros({small + large});
    parameters = {{"a", storage.narrow(0, 0, small).detach().requires_grad_(true)},
                  {"b", storage.narrow(0, small, large).detach().requires_grad_(true)}};
    parameters[0].tensor.mutable_grad() = gradients.narrow(0, 0, small);
    parameters[1].tensor.mutable_grad() = gradients.narrow(0, small, large);
  }

  /// A fixed input per parameter, drawn without a generator: the ranks are
  /// threads of one process and would race on the global one.
  static at::Tensor input(const at::Tensor& like, std::size_t p) {
    return at::sin(at::arange(like.numel(), at::kFloat) * 0.37 + static_cast<double>(p));
  }

  /// Gradient of parameter p on `rank`: (rank + 1) * (p + 1) * input(p).
  at::Tensor loss(int rank) const {
    at::Tensor total = at::zeros({});
    for (std::size_t p = 0; p < parameters.size(); ++p) {
      const at::Tensor x = input(parameters[p].tensor, p);
      total = total + (parameters[p].tensor * x).sum() * static_cast<double>(rank + 1) *
                          static_cast<double>(p + 1);
    }
    return total;
  }
};

void expectMeanGradients(bool flat) {
  constexpr std::int64_t kSmall = 1000;
  constexpr std::int64_t kLarge = 300000;  // 1.2 MB: its own bucket past the first
  onRanks(2, [flat](int rank, Communicator& group) {
    ToyModel model(flat, kSmall, kLarge);
    GradientSync sync(group, model.parameters, model.gradients, 400 * 1024);
    EXPECT_GE(sync.buckets().size(), 2U);
    for (int step = 1; step <= 2; ++step) {
      for (auto& p : model.parameters) {
        if (p.tensor.grad().defined()) p.tensor.mutable_grad().zero_();
      }
      sync.beginStep(step);
      model.loss(rank).backward(at::full({}, 0.5));  // seeded with 1 / world, as the loop does
      sync.finish();
      EXPECT_EQ(sync.startedDuringBackward(), sync.buckets().size())
          << "every bucket went out from a hook, during backward";
      for (std::size_t p = 0; p < model.parameters.size(); ++p) {
        // The mean of (1 and 2) * (p + 1) * x over the two ranks.
        const at::Tensor expected =
            ToyModel::input(model.parameters[p].tensor, p) * 1.5 * static_cast<double>(p + 1);
        EXPECT_TRUE(at::allclose(model.parameters[p].tensor.grad(), expected, 1e-6, 1e-6))
            << "rank " << rank << " parameter " << p;
      }
    }
  });
}

TEST(GradientSync, PerTensorGradientsBecomeTheMeanOverRanks) { expectMeanGradients(false); }
TEST(GradientSync, FlatBufferBucketsBecomeTheMeanOverRanks) { expectMeanGradients(true); }

}  // namespace

// ---- the embedding's rows ------------------------------------------------

/// A lookup table and a dense matrix, both in one flat buffer (or per
/// tensor), and a loss through the rows a rank's tokens select.
struct ToyLookup {
  static constexpr std::int64_t kVocab = 64;
  static constexpr std::int64_t kDim = 8;
  at::Tensor gradients;
  std::vector<NamedTensor> parameters;

  explicit ToyLookup(bool flat) {
    const at::Tensor table = at::sin(at::arange(kVocab * kDim, at::kFloat)).reshape({kVocab, kDim});
    const at::Tensor matrix = at::cos(at::arange(kDim * kDim, at::kFloat)).reshape({kDim, kDim});
    parameters = {{"embedding", table.clone().requires_grad_(true)},
                  {"matrix", matrix.clone().requires_grad_(true)}};
    if (!flat) return;
    gradients = at::zeros({kVocab * kDim + kDim * kDim});
    parameters[0].tensor.mutable_grad() =
        gradients.narrow(0, 0, kVocab * kDim).view({kVocab, kDim});
    parameters[1].tensor.mutable_grad() =
        gradients.narrow(0, kVocab * kDim, kDim * kDim).view({kDim, kDim});
  }

  /// Rank r's tokens for a step: a few rows of its own, some shared, one
  /// repeated, and most rows touched by nobody.
  static at::Tensor tokens(int rank, int step) {
    std::vector<std::int64_t> ids{3, 3, 17, static_cast<std::int64_t>(20 + 7 * rank + step),
                                  static_cast<std::int64_t>(40 + rank)};
    return at::tensor(ids, at::kLong).reshape({1, -1});
  }

  at::Tensor loss(const at::Tensor& ids, int rank) const {
    const at::Tensor x = at::embedding(parameters[0].tensor, ids.reshape(-1));
    const at::Tensor y = at::tanh(at::matmul(x, parameters[1].tensor));
    return y.pow(2).sum() * static_cast<double>(rank + 1);
  }

  void zeroGrad() {
    for (auto& p : parameters) {
      if (p.tensor.grad().defined()) p.tensor.mutable_grad().zero_();
    }
  }
};

/// Every gradient after `steps` synchronised steps on `world` ranks, with
/// the table's rows exchanged or the table summed densely in the buckets.
std::vector<std::vector<at::Tensor>> syncedGradients(
    int world, bool flat, bool rows, std::vector<std::int64_t>* rowsSent = nullptr) {
  std::vector<std::vector<at::Tensor>> result(static_cast<std::size_t>(world));
  onRanks(world, [&](int rank, Communicator& group) {
    ToyLookup model(flat);
    const std::optional<std::size_t> table = rows ? std::optional<std::size_t>(0) : std::nullopt;
    GradientSync sync(group, model.parameters, model.gradients, 400 * 1024, table);
    for (int step = 1; step <= 2; ++step) {
      model.zeroGrad();
      const at::Tensor ids = ToyLookup::tokens(rank, step);
      sync.beginStep(step, ids);
      model.loss(ids, rank).backward(at::full({}, 1.0 / world));
      sync.finish();
    }
    if (rank == 0 && rowsSent != nullptr) rowsSent->push_back(sync.tableRowsSent());
    for (const auto& p : model.parameters) {
      result[static_cast<std::size_t>(rank)].push_back(p.tensor.grad().clone());
    }
  });
  return result;
}

/// The plain mean of every rank's own gradients for step 2, in one thread.
std::vector<at::Tensor> meanGradients(int world) {
  std::vector<at::Tensor> sum;
  for (int rank = 0; rank < world; ++rank) {
    ToyLookup model(false);
    model.loss(ToyLookup::tokens(rank, 2), rank).backward();
    for (std::size_t p = 0; p < model.parameters.size(); ++p) {
      const at::Tensor grad = model.parameters[p].tensor.grad() / world;
      if (sum.size() <= p) sum.push_back(grad);
      else sum[p] = sum[p] + grad;
    }
  }
  return sum;
}

TEST(GradientSync, TheEmbeddingsTouchedRowsSumAsTheDenseTableDoesBitForBitOnTwoRanks) {
  for (const bool flat : {true, false}) {
    std::vector<std::int64_t> rowsSent;
    const auto rows = syncedGradients(2, flat, true, &rowsSent);
    const auto dense = syncedGradients(2, flat, false);
    const auto mean = meanGradients(2);
    // Rows 3, 17, 40, 41 and each rank's 20 + 7r + 2: six of 64.
    ASSERT_EQ(rowsSent, (std::vector<std::int64_t>{6})) << (flat ? "flat" : "per tensor");
    for (int rank = 0; rank < 2; ++rank) {
      for (std::size_t p = 0; p < mean.size(); ++p) {
        const auto& got = rows[static_cast<std::size_t>(rank)][p];
        // Two ranks: every row is a + b either way.
        EXPECT_TRUE(at::equal(got, dense[static_cast<std::size_t>(rank)][p]))
            << (flat ? "flat" : "per tensor") << " rank " << rank << " parameter " << p;
        EXPECT_TRUE(at::allclose(got, mean[p], 1e-6, 1e-7))
            << (flat ? "flat" : "per tensor") << " rank " << rank << " parameter " << p;
      }
    }
  }
}

TEST(GradientSync, TheEmbeddingsTouchedRowsMatchTheDenseSumOnThreeRanks) {
  const auto rows = syncedGradients(3, true, true);
  const auto dense = syncedGradients(3, true, false);
  const auto mean = meanGradients(3);
  for (int rank = 0; rank < 3; ++rank) {
    for (std::size_t p = 0; p < mean.size(); ++p) {
      const auto& got = rows[static_cast<std::size_t>(rank)][p];
      EXPECT_TRUE(at::equal(got, rows[0][p])) << "every rank holds the same sums";
      // Three summands may be added in another order than the dense ring
      // adds them: float32 rounding of values below 10, so 1e-6 relative.
      EXPECT_TRUE(at::allclose(got, dense[static_cast<std::size_t>(rank)][p], 1e-6, 1e-6))
          << "rank " << rank << " parameter " << p;
      EXPECT_TRUE(at::allclose(got, mean[p], 1e-6, 1e-6)) << "rank " << rank << " parameter " << p;
    }
  }
  // The rows nobody touched stayed zero.
  EXPECT_TRUE(at::equal(rows[0][0][0], at::zeros({ToyLookup::kDim})));
}
