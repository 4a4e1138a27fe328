// A GPU queues work asynchronously, so each timing ends with a host copy of
// one element (a synchronisation available without CUDA headers). The model
// products are timed forward and backward (dX = dY·W and dW = dYᵀ·X): a path
// that wins the forward product can lose the transposed ones, as oneDNN did
// here before the probe timed them.
//
// Each path races in the threads it would train with, and its first pass
// after they change is not timed: the threads the other path's pass left
// busy compete for the cores for a while (oneDNN's products ran at 60-175
// GFLOP/s right after ATen's pass, 260-280 after one more pass). The decision
// takes one decoder block as well as the products: on ATen's path the tuned
// runtime leaves the step's other operators one thread, and a `small` step
// took 670 ms there against 510 ms on oneDNN's, while the products' rates
// were within 10 % and went either way (docs/PERF.md, "Start-up choices").
// Neither race alone is safe from a slow spell; see fastestPath.
#include "matmul/matmul_probe.hpp"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "runtime/host_runtime.hpp"

namespace tb::engine {
namespace {

constexpr std::int64_t kSquareCpu = 1024;
constexpr std::int64_t kSquareGpu = 4096;
constexpr int kRepeats = 3;
/// Passes per path over a step's products (about 80 ms each on `small` here).
constexpr int kModelRepeats = 5;
/// Timed blocks per path (about 70 ms each on `small` here).
constexpr int kBlockRepeats = 3;

double bestGflops(c10::Device device, at::ScalarType type, std::int64_t size, int repeats) {
  const auto options = at::TensorOptions().dtype(type).device(device);
  const at::Tensor a = at::randn({size, size}, options);
  const at::Tensor b = at::randn({size, size}, options);
  at::Tensor c = at::matmul(a, b);  // warm-up: library initialisation, page faults
  (void)c.flatten()[0].item<double>();
  double best = 0.0;
  for (int i = 0; i < repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    at::matmul_out(c, a, b);
    (void)c.flatten()[0].item<double>();
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    const double flops =
        2.0 * static_cast<double>(size) * static_cast<double>(size) * static_cast<double>(size);
    if (elapsed.count() > 0.0) best = std::max(best, flops / elapsed.count() / 1e9);
  }
  return best;
}

/// A product x [rows, in] · W[out, in]ᵀ that a step runs `count` times.
struct Product {
  std::int64_t in = 0;
  std::int64_t out = 0;
  double count = 0.0;
};

std::vector<Product> stepProducts(const ModelConfig& model) {
  const auto layers = static_cast<double>(model.layers);
  const std::int64_t kvWidth = model.kvHeads * headDim(model);
  return {{model.dim, model.dim, 2.0 * layers},  // wq, wo
          {model.dim, kvWidth, 2.0 * layers},    // wk, wv
          {model.dim, model.ffn, 2.0 * layers},  // w1, w3
          {model.ffn, model.dim, layers},        // w2
          {model.dim, model.vocab, 1.0}};        // output head
}

}  // namespace

MatmulRate probeMatmulRate(c10::Device device, std::int64_t size, int repeats) {
  std::vector<at::ScalarType> types{at::kFloat};
  if (device.is_cuda()) types.insert(types.begin(), at::kBFloat16);
  MatmulRate rate;
  for (const auto type : types) {
    const double gflops = bestGflops(device, type, size, repeats);
    if (gflops > rate.gflops) {
      rate.gflops = gflops;
      rate.path = std::string(type == at::kBFloat16 ? "bf16 " : "float32 ") + std::to_string(size) +
                  "x" + std::to_string(size);
    }
  }
  return rate;
}

namespace {

/// Runs `timePass` (seconds) for each of `paths` in turn, `repeats` times, and
/// keeps the least time of each; a warm-up pass each first. With `arrange`,
/// each pass runs in its path's threads after an untimed pass in them.
template <typename TimePass>
std::vector<double> race(const std::vector<const MatmulPath*>& paths, int repeats,
                         const ArrangeThreads& arrange, TimePass timePass) {
  std::vector<double> best(paths.size(), std::numeric_limits<double>::infinity());
  for (const MatmulPath* path : paths) {  // warm-up: primitives, pages
    if (arrange) arrange(*path);
    (void)timePass(*path);
  }
  // The paths take turns, one pass each, so that a slow spell of the machine
  // (a neighbour on a shared host) falls on every path alike instead of
  // deciding the race. Timing each path's repeats together put 3 of about 40
  // runs of `small` on the slower path, one of them at 1.3-1.7x the step time
  // of its other runs (docs/PERF.md).
  for (int i = 0; i < repeats; ++i) {
    for (std::size_t p = 0; p < paths.size(); ++p) {
      if (arrange) {
        arrange(*paths[p]);
        (void)timePass(*paths[p]);
      }
      best[p] = std::min(best[p], timePass(*paths[p]));
    }
  }
  return best;
}

}  // namespace

std::vector<double> probeModelProducts(const std::vector<const MatmulPath*>& paths,
                                       const ModelConfig& model, int repeats,
                                       const ArrangeThreads& arrange) {
  const std::int64_t rows = model.batch * model.seq;
  struct Operands {
    at::Tensor x, weight, gradOut;
    double count;
  };
  const auto forwardAndBackward = [](const MatmulPath& path, const Operands& op) {
    op.x.mutable_grad().reset();
    op.weight.mutable_grad().reset();
    path.linear(op.x, op.weight, {}).backward(op.gradOut);
  };
  std::vector<Operands> operands;
  double flops = 0.0;
  for (const Product& product : stepProducts(model)) {
    operands.push_back({at::randn({rows, product.in}).requires_grad_(),
                        at::randn({product.out, product.in}).requires_grad_(),
                        at::randn({rows, product.out}), product.count});
    // Three products of the same size: forward, dX and dW.
    flops += 3.0 * 2.0 * static_cast<double>(rows * product.in * product.out) * product.count;
  }
  std::vector<double> rates = race(paths, repeats, arrange, [&](const MatmulPath& path) {
    double seconds = 0.0;
    for (const Operands& op : operands) {
      const auto start = std::chrono::steady_clock::now();
      forwardAndBackward(path, op);
      const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
      seconds += elapsed.count() * op.count;
    }
    return seconds;
  });
  for (double& rate : rates) rate = rate > 0.0 ? flops / rate / 1e9 : 0.0;
  return rates;
}

namespace {

/// What the probe measured for one model shape on one device at one thread count.
struct ProbeMeasurement {
  MatmulRate square;
  std::vector<PathRate> candidates;
};

// The products' shapes, the thread count and the block's operators decide the
// measurements; a process that trains many runs (the Studio's tests, the
// memory sweep) measures each once instead of spending the probe's start-up
// time on every run.
using ProbeKey = std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                            std::int64_t, std::int64_t, bool, int, int, bool, std::string>;

ProbeMeasurement measure(const ModelConfig& model, c10::Device device, const PathRace& race) {
  const ProbeKey key{model.dim,
                     model.ffn,
                     model.heads,
                     model.kvHeads,
                     model.vocab,
                     model.batch,
                     model.seq,
                     device.is_cuda(),
                     at::get_num_threads(),
                     blasLibraryThreads(),
                     static_cast<bool>(race.arrange),
                     race.timeBlock ? race.variant : std::string()};
  static std::mutex mutex;
  static std::map<ProbeKey, ProbeMeasurement> measured;
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto found = measured.find(key); found != measured.end()) return found->second;
  ProbeMeasurement result;
  result.square = probeMatmulRate(device, device.is_cuda() ? kSquareGpu : kSquareCpu, kRepeats);
  if (!device.is_cuda()) {
    const std::vector<const MatmulPath*>& paths = cpuMatmulPaths();
    const std::vector<double> rates = probeModelProducts(paths, model, kModelRepeats, race.arrange);
    std::vector<double> blocks(paths.size(), 0.0);
    if (race.timeBlock) {
      blocks = tb::engine::race(paths, kBlockRepeats, race.arrange, race.timeBlock);
    }
    for (std::size_t p = 0; p < paths.size(); ++p) {
      result.candidates.push_back({std::string(paths[p]->name()), rates[p], blocks[p]});
    }
  }
  measured.emplace(key, result);
  return result;
}

}  // namespace

std::string fastestPath(const std::vector<PathRate>& candidates) {
  const auto best = [&candidates](auto faster) {
    const auto found = std::min_element(candidates.begin(), candidates.end(), faster);
    return found == candidates.end() ? std::string() : found->path;
  };
  const std::string byProducts =
      best([](const PathRate& a, const PathRate& b) { return a.gflops > b.gflops; });
  const bool timedBlocks = !candidates.empty() && std::all_of(candidates.begin(), candidates.end(),
                                                              [](const PathRate& rate) {
                                                                return rate.blockSeconds > 0.0;
                                                              });
  if (!timedBlocks) return byProducts;
  const std::string byBlock =
      best([](const PathRate& a, const PathRate& b) { return a.blockSeconds < b.blockSeconds; });
  // Two of about 25 runs of `small` on one Emerald Rapids VM took ATen's path
  // on the block alone, with products 10 % slower than oneDNN's, and trained
  // 28-36 % slower a step (docs/PERF.md, "Start-up choices").
  // The specialised path is the last candidate (cpuMatmulPaths' order).
  return byBlock == byProducts ? byBlock : candidates.back().path;
}

MatmulChoice chooseMatmulPath(const ModelConfig& model, c10::Device device, bool pickFastest,
                              const PathRace& race) {
  const ProbeMeasurement measured = measure(model, device, race);
  MatmulChoice choice;
  choice.path = &atenMatmulPath();
  choice.peak = measured.square;
  choice.candidates = measured.candidates;
  for (const PathRate& candidate : measured.candidates) {
    if (candidate.gflops > choice.peak.gflops) {
      choice.peak = {candidate.gflops, candidate.path + " on the model's products"};
    }
  }
  if (pickFastest) {
    const std::string fastest = fastestPath(measured.candidates);
    for (const MatmulPath* path : cpuMatmulPaths()) {
      if (path->name() == fastest) choice.path = path;
    }
  }
  return choice;
}

}  // namespace tb::engine
