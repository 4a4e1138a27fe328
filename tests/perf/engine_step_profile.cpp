// engine_step_profile: where the engine's training step spends its time, for
// docs/PERF.md. It runs the training loop's step (Decoder::loss, backward,
// clipGradientNorm, AdamW) in-process on a preset and reports
//  1. wall time per phase: forward, backward, clip, optimizer, loss read-back;
//  2. self time per ATen op and autograd node, through a RecordFunction
//     observer: an op's time minus the time of the ops it called, so nested
//     calls (linear -> matmul -> mm) are counted once, as PyTorch's profiler
//     does with self_cpu_time. Phases are timed without the observer, whose
//     per-op cost would otherwise land in them.
//
// With --runtime or --compile it profiles the real training loop instead
// (trainbench run's path: the runtime's thread arrangement, matmul path, flat
// buffers, the --recompute policy and, with --compile on, the fused operators,
// which name themselves through OpScope): one unobserved run first, so the start-up probe is
// measured and memoised, then an observed run of --steps steps, its op self
// times per step set against its mean step time; the difference is time in
// no recorded op (autograd's own bookkeeping, Python-free glue, idle threads).
//
//   engine_step_profile [--model small] [--batch B] [--steps 20] [--profile-steps 5]
//                       [--threads N]
//   engine_step_profile --runtime tuned [--compile on] [--recompute POLICY] [--model small]
//                       [--batch B] [--steps 10]
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>
#include <ATen/record_function.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/adamw.hpp"
#include "model/decoder.hpp"
#include "model/decoder_ops.hpp"
#include "tb/engine/blas_kernels.hpp"
#include "tb/engine/run_config.hpp"
#include "tb/engine/trainer.hpp"
#include "tb/common/host_cores.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct OpTotal {
  double selfSeconds = 0.0;
  std::int64_t calls = 0;
};

struct Frame : at::ObserverContext {
  std::string name;
  Clock::time_point start;
  double childSeconds = 0.0;
  Frame* parent = nullptr;
};

std::mutex totalsMutex;
std::map<std::string, OpTotal> totals;
thread_local Frame* current = nullptr;

std::unique_ptr<at::ObserverContext> onStart(const at::RecordFunction& fn) {
  auto frame = std::make_unique<Frame>();
  frame->name = fn.name();
  frame->parent = current;
  frame->start = Clock::now();
  current = frame.get();
  return frame;
}

void onEnd(const at::RecordFunction& /*fn*/, at::ObserverContext* context) {
  auto* frame = static_cast<Frame*>(context);
  if (frame == nullptr) return;
  const double seconds = std::chrono::duration<double>(Clock::now() - frame->start).count();
  if (frame->parent != nullptr) frame->parent->childSeconds += seconds;
  current = frame->parent;
  const std::lock_guard<std::mutex> lock(totalsMutex);
  OpTotal& total = totals[frame->name];
  total.selfSeconds += seconds - frame->childSeconds;
  ++total.calls;
}

int intFlag(int argc, char** argv, const std::string& flag, int fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (argv[i] == flag) {
      const int value = std::atoi(argv[i + 1]);
      if (value < 1) {
        std::fprintf(stderr, "engine_step_profile: %s must be at least 1, got %s\n", flag.c_str(),
                     argv[i + 1]);
        std::exit(2);
      }
      return value;
    }
  }
  return fallback;
}

std::string textFlag(int argc, char** argv, const std::string& flag, const std::string& fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (argv[i] == flag) return argv[i + 1];
  }
  return fallback;
}

bool hasFlag(int argc, char** argv, const std::string& flag) {
  for (int i = 1; i < argc; ++i) {
    if (argv[i] == flag) return true;
  }
  return false;
}

void printOpTable(double perStepDivisor, double stepSeconds) {
  std::vector<std::pair<std::string, OpTotal>> sorted(totals.begin(), totals.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return a.second.selfSeconds > b.second.selfSeconds;
  });
  double recorded = 0.0;
  for (const auto& entry : sorted) recorded += entry.second.selfSeconds;
  const double total = stepSeconds > 0.0 ? stepSeconds * perStepDivisor : recorded;
  std::printf("\n| op (self time) | calls/step | ms/step | share |\n|---|---|---|---|\n");
  for (std::size_t i = 0; i < std::min<std::size_t>(18, sorted.size()); ++i) {
    const auto& [name, op] = sorted[i];
    std::printf("| %s | %.0f | %.1f | %.1f%% |\n", name.c_str(),
                static_cast<double>(op.calls) / perStepDivisor,
                1e3 * op.selfSeconds / perStepDivisor, 100.0 * op.selfSeconds / total);
  }
  if (stepSeconds > 0.0) {
    std::printf("| (in no recorded op) | | %.1f | %.1f%% |\n",
                1e3 * (total - recorded) / perStepDivisor, 100.0 * (total - recorded) / total);
  }
}

/// Profiles trainbench run's own loop; see the file comment.
int profileTrainer(const tb::model::ModelConfig& model, int argc, char** argv) {
  using namespace tb::engine;
  const auto runtime = parseRuntime(textFlag(argc, argv, "--runtime", "tuned"));
  if (!runtime) {
    std::fprintf(stderr, "engine_step_profile: %s\n", runtime.error().message.c_str());
    return 2;
  }
  RunConfig config;
  config.model = model;
  config.runtime = *runtime;
  config.compile = textFlag(argc, argv, "--compile", "off") == "on";
  const auto recompute = parseRecomputePolicy(textFlag(argc, argv, "--recompute", "none"));
  if (!recompute) {
    std::fprintf(stderr, "engine_step_profile: %s\n", recompute.error().message.c_str());
    return 2;
  }
  if (recompute->mode == RecomputeMode::Auto) {
    std::fprintf(stderr,
                 "engine_step_profile: --recompute auto needs a memory budget; "
                 "name the policy it plans instead\n");
    return 2;
  }
  config.recompute = *recompute;
  config.threads = hasFlag(argc, argv, "--threads") ? intFlag(argc, argv, "--threads", 1) : 0;
  config.runDir = std::filesystem::temp_directory_path() / "tb_engine_step_profile";
  config.steps = 2;
  std::filesystem::remove_all(config.runDir);
  if (auto warm = runTraining(config); !warm) {
    std::fprintf(stderr, "engine_step_profile: %s\n", warm.error().message.c_str());
    return 1;
  }
  config.steps = intFlag(argc, argv, "--steps", 10);
  std::filesystem::remove_all(config.runDir);
  const auto handle = at::addGlobalCallback(at::RecordFunctionCallback(onStart, onEnd));
  const auto summary = runTraining(config);
  at::removeCallback(handle);
  double stepSeconds = 0.0;  // all steps, from the step events
  std::ifstream events(config.runDir / "events.jsonl");
  for (std::string line; std::getline(events, line);) {
    const auto event = nlohmann::json::parse(line, nullptr, false);
    if (event.is_object() && event.value("event", "") == "step") {
      stepSeconds += event.value("step_time_s", 0.0);
    }
  }
  // The BLAS library's own pool: on ATen's path it, not the intra-op pool,
  // runs the products, so "1 threads" alone misreads such a run.
  int blasThreads = 0;
  if (std::ifstream file(config.runDir / "config.json"); file) {
    const auto written = nlohmann::json::parse(file, nullptr, false);
    if (written.is_object()) blasThreads = written.value("blas_threads", 0);
  }
  std::filesystem::remove_all(config.runDir);
  if (!summary) {
    std::fprintf(stderr, "engine_step_profile: %s\n", summary.error().message.c_str());
    return 1;
  }
  std::printf(
      "engine %s, runtime %s, compile %s, recompute %s, %d threads (BLAS %d), matmul %s, "
      "%lld steps: median step %.1f ms, %.0f tokens/s, MFU %.1f %% of %.0f GFLOP/s\n",
      model.name.c_str(), toString(config.runtime).c_str(), config.compile ? "on" : "off",
      summary->recompute.c_str(), summary->threads, blasThreads, summary->matmulPath.c_str(),
      static_cast<long long>(config.steps), 1e3 * summary->stepTimeSeconds,
      summary->tokensPerSecond, 100.0 * summary->mfu, summary->matmulGflops);
  // Every step is observed: op times and the steps' own times are both
  // summed over all of them, the first step's one-time costs included.
  const auto steps = static_cast<double>(config.steps);
  printOpTable(steps, stepSeconds / steps);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tb::engine;
  // The products below are timed on the kernels trainbench itself would use.
  tb::engine::restartWithBlasKernelsForThisCpu(argv);
  const auto preset = tb::model::findPreset(textFlag(argc, argv, "--model", "small"));
  if (!preset) {
    std::fprintf(stderr, "engine_step_profile: %s\n", preset.error().message.c_str());
    return 2;
  }
  ModelConfig config = *preset;
  config.batch = intFlag(argc, argv, "--batch", static_cast<int>(config.batch));
  if (hasFlag(argc, argv, "--runtime") || hasFlag(argc, argv, "--compile")) {
    return profileTrainer(config, argc, argv);
  }
  const int steps = intFlag(argc, argv, "--steps", 20);
  const int profileSteps = intFlag(argc, argv, "--profile-steps", 5);
  const int threads = intFlag(argc, argv, "--threads", tb::physicalCoreCount());
  at::set_num_threads(threads);

  Decoder decoder(config, initialiseWeights(config, 1234, c10::Device(c10::kCPU)), referenceOps(),
                  at::kFloat);
  const std::vector<NamedTensor> parameters = namedParameters(decoder.weights());
  AdamW optimizer(parameters);
  auto generator = at::make_generator<at::CPUGeneratorImpl>(99);
  std::map<std::string, double> phases;
  const auto step = [&](bool timed) {
    auto last = Clock::now();
    const auto mark = [&](const char* phase) {
      const auto now = Clock::now();
      if (timed) phases[phase] += std::chrono::duration<double>(now - last).count();
      last = now;
    };
    const at::Tensor rows =
        at::randint(config.vocab, {config.batch, config.seq + 1}, generator, at::kLong);
    const at::Tensor loss = decoder.loss(rows);
    mark("forward");
    loss.backward();
    mark("backward");
    (void)clipGradientNorm(parameters, 1.0);
    mark("clip");
    optimizer.step();
    optimizer.zeroGrad();
    mark("optimizer");
    (void)loss.item<double>();
    mark("loss read-back");
  };

  const int warmup = std::min(3, steps);
  for (int i = 0; i < steps; ++i) step(i >= warmup);
  const double timedSteps = static_cast<double>(steps - warmup);
  double total = 0.0;
  for (const auto& [name, seconds] : phases) total += seconds;
  std::printf("engine %s, %d threads, %d timed steps\n\n", config.name.c_str(), threads,
              steps - warmup);
  std::printf("| phase | ms/step | share |\n|---|---|---|\n");
  for (const auto& [name, seconds] : phases) {
    std::printf("| %s | %.1f | %.0f%% |\n", name.c_str(), 1e3 * seconds / timedSteps,
                100.0 * seconds / total);
  }

  const auto handle = at::addGlobalCallback(at::RecordFunctionCallback(onStart, onEnd));
  for (int i = 0; i < profileSteps; ++i) step(false);
  at::removeCallback(handle);
  printOpTable(static_cast<double>(profileSteps), 0.0);
  return 0;
}
