// A GPU queues work asynchronously, so each timing ends with a host copy of
// one element (a synchronisation available without CUDA headers). The model
// products are timed forward and backward (dX = dY·W and dW = dYᵀ·X): a path
// that wins the forward product can lose the transposed ones, as oneDNN did
// here before the probe timed them.
#include "matmul_probe.hpp"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "host_runtime.hpp"
#include "onednn_matmul.hpp"

namespace tb::engine {
namespace {

constexpr std::int64_t kSquareCpu = 1024;
constexpr std::int64_t kSquareGpu = 4096;
constexpr int kRepeats = 3;
/// Passes per path over a step's products (about 80 ms each on `small` here).
constexpr int kModelRepeats = 5;

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
    const double flops = 2.0 * static_cast<double>(size) * static_cast<double>(size) *
                         static_cast<double>(size);
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
  return {{model.dim, model.dim, 2.0 * layers},    // wq, wo
          {model.dim, kvWidth, 2.0 * layers},      // wk, wv
          {model.dim, model.ffn, 2.0 * layers},    // w1, w3
          {model.ffn, model.dim, layers},          // w2
          {model.dim, model.vocab, 1.0}};          // output head
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
      rate.path = std::string(type == at::kBFloat16 ? "bf16 " : "float32 ") +
                  std::to_string(size) + "x" + std::to_string(size);
    }
  }
  return rate;
}

std::vector<double> probeModelProducts(const std::vector<const MatmulPath*>& paths,
                                       const ModelConfig& model, int repeats) {
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
  for (const MatmulPath* path : paths) {
    for (const Operands& op : operands) forwardAndBackward(*path, op);  // warm-up: primitives, pages
  }
  // The paths take turns, one pass over the step's products each, so that a
  // slow spell of the machine (a neighbour on a shared host) falls on every
  // path alike instead of deciding the race. Timing each path's repeats
  // together put 3 of about 40 runs of `small` on the slower path, one of
  // them at 1.3-1.7x the step time of its other runs (docs/PERF.md).
  std::vector<double> best(paths.size(), 0.0);
  for (int i = 0; i < repeats; ++i) {
    for (std::size_t p = 0; p < paths.size(); ++p) {
      double seconds = 0.0;
      for (const Operands& op : operands) {
        const auto start = std::chrono::steady_clock::now();
        forwardAndBackward(*paths[p], op);
        const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
        seconds += elapsed.count() * op.count;
      }
      if (seconds > 0.0) best[p] = std::max(best[p], flops / seconds / 1e9);
    }
  }
  return best;
}

namespace {

/// What the probe measured for one model shape on one device at one thread count.
struct ProbeMeasurement {
  MatmulRate square;
  std::vector<PathRate> candidates;
};

// The products' shapes and the thread count decide the rates; a process that
// trains many runs (the Studio's tests, the memory sweep) measures each shape
// once instead of spending the probe's start-up time on every run.
using ProbeKey = std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                            std::int64_t, std::int64_t, int, int, int>;

ProbeMeasurement measure(const ModelConfig& model, c10::Device device) {
  const ProbeKey key{model.dim,   model.ffn,   model.heads, model.kvHeads,
                     model.vocab, model.batch, model.seq,   device.is_cuda() ? 1 : 0,
                     at::get_num_threads(), blasLibraryThreads()};
  static std::mutex mutex;
  static std::map<ProbeKey, ProbeMeasurement> measured;
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto found = measured.find(key); found != measured.end()) return found->second;
  ProbeMeasurement result;
  result.square = probeMatmulRate(device, device.is_cuda() ? kSquareGpu : kSquareCpu, kRepeats);
  if (!device.is_cuda()) {
    const std::vector<const MatmulPath*> paths{&atenMatmulPath(), &oneDnnMatmulPath()};
    const std::vector<double> rates = probeModelProducts(paths, model, kModelRepeats);
    for (std::size_t p = 0; p < paths.size(); ++p) {
      result.candidates.push_back({std::string(paths[p]->name()), rates[p]});
    }
  }
  measured.emplace(key, result);
  return result;
}

}  // namespace

MatmulChoice chooseMatmulPath(const ModelConfig& model, c10::Device device, bool pickFastest) {
  const ProbeMeasurement measured = measure(model, device);
  MatmulChoice choice;
  choice.path = &atenMatmulPath();
  choice.peak = measured.square;
  choice.candidates = measured.candidates;
  double fastest = 0.0;
  for (const PathRate& candidate : measured.candidates) {
    const MatmulPath* path =
        candidate.path == oneDnnMatmulPath().name() ? &oneDnnMatmulPath() : &atenMatmulPath();
    if (pickFastest && candidate.gflops > fastest) {
      fastest = candidate.gflops;
      choice.path = path;
    }
    if (candidate.gflops > choice.peak.gflops) {
      choice.peak = {candidate.gflops, candidate.path + " on the model's products"};
    }
  }
  return choice;
}

}  // namespace tb::engine
