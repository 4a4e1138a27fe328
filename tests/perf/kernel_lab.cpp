// kernel_lab: each fused operator of the compiled step timed against its
// plain reference, forward + backward, on the shapes of the `small` preset
// (docs/PERF.md, "Kernel lab"). The element-wise kernels are
// memory-bound, so each is reported as bytes it must move over its time,
// against the machine's bandwidth measured here with a STREAM-style triad;
// attention and the head are compute-bound and are reported by time, their
// bytes given only for scale. Minimum bytes count each tensor read or written
// once per pass; a reference that moves more shows up as a lower GB/s.
//
//   kernel_lab [--repeats N] [--threads N]
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "runtime/adamw.hpp"
#include "model/decoder.hpp"
#include "fused/fused_ops.hpp"
#include "matmul/matmul_path.hpp"
#include "ops/ops.hpp"
#include "tb/engine/blas_kernels.hpp"
#include "tb/engine/run_config.hpp"
#include "tb/model/model_config.hpp"
#include "tb/common/host_cores.hpp"
#include "tb/common/statistics.hpp"

namespace {

namespace fused = tb::engine::fused;
namespace ops = tb::engine::ops;
using Clock = std::chrono::steady_clock;

int gRepeats = 20;

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

/// Median seconds of `repeats` runs after two warm-up runs.
double medianSeconds(const std::function<void()>& body) {
  body();
  body();
  std::vector<double> times;
  for (int i = 0; i < gRepeats; ++i) {
    const auto start = Clock::now();
    body();
    times.push_back(seconds(Clock::now() - start));
  }
  return tb::median(times);
}

/// GB/s of a triad a = b + s·c over 3 × 32 Mi floats (384 MiB): beyond any
/// cache, on the same threads the kernels use. Best of the repeats, as STREAM.
double triadBandwidth() {
  const std::int64_t n = std::int64_t{32} << 20;
  at::Tensor a = at::empty({n});
  const at::Tensor b = at::rand({n});
  const at::Tensor c = at::rand({n});
  float* ap = a.data_ptr<float>();
  const float* bp = b.data_ptr<float>();
  const float* cp = c.data_ptr<float>();
  double best = 1e30;
  for (int i = 0; i < 5; ++i) {
    const auto start = Clock::now();
    at::parallel_for(0, n, 1 << 16, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t j = begin; j < end; ++j) ap[j] = bp[j] + 3.0F * cp[j];
    });
    best = std::min(best, seconds(Clock::now() - start));
  }
  return 3.0 * 4.0 * static_cast<double>(n) / best / 1e9;
}

/// A forward + backward of an op on leaves made from `inputs`.
std::function<void()> trainingPass(std::function<at::Tensor(std::vector<at::Tensor>&)> op,
                                   const std::vector<at::Tensor>& inputs) {
  return [op = std::move(op), inputs] {
    std::vector<at::Tensor> leaves;
    for (const auto& input : inputs) leaves.push_back(input.detach().requires_grad_(true));
    const at::Tensor out = op(leaves);
    out.backward(at::ones_like(out));
    for (auto& l : leaves) l.mutable_grad() = at::Tensor();
  };
}

struct Row {
  std::string op;
  std::string shape;
  double minimumBytes;
  bool memoryBound;
  std::function<void()> reference;
  std::function<void()> fusedPass;
};

void report(const Row& row, double bandwidth) {
  const double ref = medianSeconds(row.reference);
  const double fast = medianSeconds(row.fusedPass);
  const double gbps = row.minimumBytes / fast / 1e9;
  const std::string share = row.memoryBound
                                ? std::to_string(static_cast<int>(100.0 * gbps / bandwidth)) + " %"
                                : std::string("compute-bound");
  std::printf("| %-14s | %-18s | %8.3f | %8.3f | %5.2fx | %6.1f | %s |\n", row.op.c_str(),
              row.shape.c_str(), ref * 1e3, fast * 1e3, ref / fast, gbps, share.c_str());
}

std::string shapeText(const at::Tensor& t) {
  std::string text = "[";
  for (std::int64_t i = 0; i < t.dim(); ++i) {
    text += (i > 0 ? "," : "") + std::to_string(t.size(i));
  }
  return text + "]";
}

std::vector<Row> rowsFor(const tb::model::ModelConfig& m) {
  const std::int64_t tokens = m.batch * m.seq;
  const std::int64_t hd = m.dim / m.heads;
  const double f = 4.0;  // bytes per float
  const auto n = [](auto... sizes) { return static_cast<double>((sizes * ...)); };
  std::vector<Row> rows;

  const at::Tensor x = at::randn({m.batch, m.seq, m.dim});
  const at::Tensor w = at::randn({m.dim});
  // Forward reads x, writes y; backward reads g and x, writes dx.
  rows.push_back(
      {"rmsNorm", shapeText(x), 5.0 * f * n(tokens, m.dim), true,
       trainingPass([](auto& in) { return ops::rmsNorm(in[0], in[1], 1e-5); }, {x, w}),
       trainingPass([](auto& in) { return fused::rmsNorm(in[0], in[1], 1e-5); }, {x, w})});

  const auto tables = ops::ropeTables(m.seq, hd, m.ropeTheta, at::kFloat);
  const at::Tensor q = at::randn({m.batch, m.seq, m.heads, hd});
  rows.push_back({"rope (q)", shapeText(q), 4.0 * f * n(tokens, m.dim), true,
                  trainingPass([tables](auto& in) { return ops::rope(in[0], tables); }, {q}),
                  trainingPass([tables](auto& in) { return fused::rope(in[0], tables); }, {q})});

  const at::Tensor a = at::randn({tokens, m.ffn});
  const at::Tensor b = at::randn({tokens, m.ffn});
  // Forward reads a, b, writes y; backward reads g, a, b, writes da, db.
  rows.push_back({"swiGluGate", shapeText(a), 8.0 * f * n(tokens, m.ffn), true,
                  trainingPass([](auto& in) { return ops::swiGluGate(in[0], in[1]); }, {a, b}),
                  trainingPass([](auto& in) { return fused::swiGluGate(in[0], in[1]); }, {a, b})});

  const at::Tensor k = at::randn({m.batch, m.seq, m.kvHeads, hd});
  const at::Tensor v = at::randn({m.batch, m.seq, m.kvHeads, hd});
  const double qkvo = n(tokens, hd) * static_cast<double>(2 * m.heads + 2 * m.kvHeads);
  rows.push_back(
      {"attention", shapeText(q) + " kv " + std::to_string(m.kvHeads), 2.0 * f * qkvo, false,
       trainingPass([](auto& in) { return ops::causalAttentionGrouped(in[0], in[1], in[2]); },
                    {q, k, v}),
       trainingPass([](auto& in) { return fused::causalAttention(in[0], in[1], in[2]); },
                    {q, k, v})});

  const at::Tensor hidden = at::randn({tokens, m.dim});
  const at::Tensor head = at::randn({m.vocab, m.dim}) * 0.02;
  const at::Tensor targets = at::randint(m.vocab, {tokens}, at::kLong);
  const auto& path = tb::engine::atenMatmulPath();
  rows.push_back(
      {"headLoss", shapeText(hidden) + " V " + std::to_string(m.vocab),
       2.0 * f * n(m.dim, tokens + m.vocab), false,
       trainingPass(
           [targets, &path](auto& in) {
             return ops::crossEntropy(path.linear(in[0], in[1], at::Tensor()), targets);
           },
           {hidden, head}),
       trainingPass(
           [targets, &path](auto& in) { return fused::headLoss(in[0], in[1], targets, path); },
           {hidden, head})});
  return rows;
}

/// clipGradientNorm + AdamW::step over the model's parameter tensors against
/// clippedAdamW over one flat buffer of the same size.
Row optimizerRow(const tb::model::ModelConfig& m) {
  auto named = tb::engine::namedParameters(tb::engine::initialiseWeights(m, 1, at::kCPU));
  std::int64_t total = 0;
  std::int64_t decayEnd = 0;
  for (auto& entry : named) {
    entry.tensor.mutable_grad() = at::randn_like(entry.tensor);
    total += entry.tensor.numel();
    if (entry.tensor.dim() == 2) decayEnd += entry.tensor.numel();
  }
  auto optimizer = std::make_shared<tb::engine::AdamW>(named);
  struct Flat {
    at::Tensor params, grads, avg, avgSq;
  };
  auto flat = std::make_shared<Flat>(
      Flat{at::randn({total}), at::randn({total}), at::zeros({total}), at::zeros({total})});
  auto step = std::make_shared<std::int64_t>(0);
  // Pass 1 reads g; pass 2 reads p, g, m, v and writes p, m, v.
  return {"clippedAdamW",
          std::to_string(total) + " params",
          8.0 * 4.0 * static_cast<double>(total),
          true,
          [named, optimizer] {
            (void)tb::engine::clipGradientNorm(named, 1.0);
            optimizer->step();
          },
          [flat, step, decayEnd] {
            fused::AdamWStep hyper;
            hyper.step = ++*step;
            (void)fused::clippedAdamW(flat->params, flat->grads, flat->avg, flat->avgSq, decayEnd,
                                      hyper, 1.0);
          }};
}

}  // namespace

int main(int argc, char** argv) {
  // The products below are timed on the kernels trainbench itself would use.
  tb::engine::restartWithBlasKernelsForThisCpu(argv);
  int threads = tb::physicalCoreCount();
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const int value = std::atoi(argv[i + 1]);
    if (value < 1) {
      std::fprintf(stderr, "kernel_lab: %s needs a positive number, got '%s'\n", flag.c_str(),
                   argv[i + 1]);
      return 2;
    }
    if (flag == "--repeats") {
      gRepeats = value;
    } else if (flag == "--threads") {
      threads = value;
    } else {
      std::fprintf(stderr, "kernel_lab: unknown flag '%s'\n", flag.c_str());
      return 2;
    }
  }
  at::set_num_threads(threads);
  at::manual_seed(1);
  const auto model = *tb::model::findPreset("small");
  const double bandwidth = triadBandwidth();
  std::printf("threads %d, repeats %d, triad bandwidth %.1f GB/s\n\n", threads, gRepeats,
              bandwidth);
  std::printf(
      "| op             | shape (small)      |  ref ms  | fused ms | speed  |  GB/s  | "
      "of triad |\n|---|---|---:|---:|---:|---:|---:|\n");
  for (const Row& row : rowsFor(model)) report(row, bandwidth);
  report(optimizerRow(model), bandwidth);
  return 0;
}
