// engine_vs_eager: the benchmark for the engine's speed claim. It trains the
// same model with the same threads in the engine (`trainbench run`) and in
// PyTorch eager (engine_vs_eager.py on Debian's python3-torch), alternating
// engine, eager, engine, eager... so that load from anything else on the
// machine falls on both alike; it records the load average before every run
// for the same reason. Each run's warm-up steps are dropped, its median step
// time becomes tokens/s, and the medians over repeats are compared. MFU uses
// one denominator for both sides: the engine's in-process matmul probe.
//
//   engine_vs_eager [--model small] [--repeats 5] [--steps 30] [--warmup 5]
//                   [--threads N] [--out results.json]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "engine_vs_eager_runs.hpp"
#include "tb/common/atomic_file.hpp"
#include "tb/engine/blas_kernels.hpp"
#include "tb/engine/run_config.hpp"
#include "tb/common/host_cores.hpp"

namespace {

using tb::perf::BenchSetup;
using tb::perf::SideRun;

struct Options {
  BenchSetup setup;
  int repeats = 5;
  std::string out;
};

int usage(const std::string& message) {
  std::cerr << "engine_vs_eager: " << message << "\n"
            << "usage: engine_vs_eager [--model NAME] [--repeats N] [--steps N] [--warmup N]\n"
            << "                       [--threads N] [--trainbench PATH] [--python PATH]\n"
            << "                       [--out FILE]\n";
  return 2;
}

int fail(const std::string& message) {
  std::cerr << "engine_vs_eager: " << message << "\n";
  return 1;
}

bool parsePositive(const std::string& text, int& value) {
  char* end = nullptr;
  const long parsed = std::strtol(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0' || parsed < 0 || parsed > 1000000) return false;
  value = static_cast<int>(parsed);
  return true;
}

// Returns an empty string on success, else the message naming the bad value.
std::string parse(int argc, char** argv, Options& options) {
  BenchSetup& setup = options.setup;
  std::map<std::string, int*> numbers{{"--repeats", &options.repeats},
                                      {"--steps", &setup.steps},
                                      {"--warmup", &setup.warmupSteps},
                                      {"--threads", &setup.threads}};
  std::map<std::string, std::string*> texts{{"--model", &setup.presetName},
                                            {"--trainbench", &setup.trainbench},
                                            {"--python", &setup.python},
                                            {"--out", &options.out}};
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) return flag + " needs a value";
    const std::string value = argv[++i];
    if (const auto number = numbers.find(flag); number != numbers.end()) {
      if (!parsePositive(value, *number->second)) return flag + " must be a count, got " + value;
    } else if (const auto text = texts.find(flag); text != texts.end()) {
      *text->second = value;
    } else {
      return "unknown option " + flag;
    }
  }
  if (options.repeats < 1) return "--repeats must be at least 1";
  if (setup.threads < 1) return "--threads must be at least 1";
  if (setup.steps <= setup.warmupSteps) {
    return "--steps (" + std::to_string(setup.steps) + ") must exceed --warmup (" +
           std::to_string(setup.warmupSteps) + ")";
  }
  auto preset = tb::model::findPreset(setup.presetName);
  if (!preset) return preset.error().message;
  setup.model = *preset;
  return {};
}

struct Side {
  std::vector<double> tokensPerSecond;  // one per repeat
  std::vector<double> loads;
  nlohmann::json runs = nlohmann::json::array();
};

void record(Side& side, const SideRun& run, double tokensPerStep) {
  const double stepTime = tb::perf::median(run.stepSeconds);
  side.tokensPerSecond.push_back(tokensPerStep / stepTime);
  side.loads.push_back(run.loadBefore);
  side.runs.push_back({{"median_step_s", stepTime},
                       {"tokens_per_s", tokensPerStep / stepTime},
                       {"load_before", run.loadBefore},
                       {"loss_first", run.lossFirst},
                       {"steps_timed", run.stepSeconds.size()}});
}

}  // namespace

int main(int argc, char** argv) {
  // The eager side loads the same OpenBLAS as trainbench: it gets the kernel
  // family trainbench picks for itself (on a CPU newer than the library's
  // table, the generic SSE3 fallback multiplies about 4x slower), inherited
  // through the environment, so that both sides multiply on the same kernels.
  tb::engine::restartWithBlasKernelsForThisCpu(argv);
  Options options;
  BenchSetup& setup = options.setup;
  setup.trainbench = TB_TRAINBENCH_BINARY;
  setup.python = "/usr/bin/python3";
  setup.eagerScript = TB_EAGER_SCRIPT;
  setup.presetName = "small";
  setup.threads = tb::physicalCoreCount();
  setup.scratchDir = (std::filesystem::temp_directory_path() / "tb_engine_vs_eager").string();
  if (const std::string problem = parse(argc, argv, options); !problem.empty()) {
    return usage(problem);
  }

  const double tokensPerStep = static_cast<double>(setup.model.batch * setup.model.seq);
  Side engine;
  Side eager;
  std::vector<double> probes;
  for (int repeat = 0; repeat < options.repeats; ++repeat) {
    auto engineRun = tb::perf::runEngine(setup, std::to_string(repeat));
    if (!engineRun) return fail(engineRun.error().message);
    record(engine, *engineRun, tokensPerStep);
    probes.push_back(engineRun->matmulGflops);
    auto eagerRun = tb::perf::runEager(setup);
    if (!eagerRun) return fail(eagerRun.error().message);
    record(eager, *eagerRun, tokensPerStep);
    std::fprintf(stderr, "repeat %d/%d: engine %.1f tok/s, eager %.1f tok/s\n", repeat + 1,
                 options.repeats, engine.tokensPerSecond.back(), eager.tokensPerSecond.back());
  }

  const double flopsPerToken = tb::model::flopsPerToken(setup.model);
  const double peak = tb::perf::median(probes) * 1e9;
  const double engineRate = tb::perf::median(engine.tokensPerSecond);
  const double eagerRate = tb::perf::median(eager.tokensPerSecond);
  const nlohmann::json result = {{"model", setup.presetName},
                                 {"threads", setup.threads},
                                 {"repeats", options.repeats},
                                 {"steps", setup.steps},
                                 {"warmup_steps", setup.warmupSteps},
                                 {"flops_per_token", flopsPerToken},
                                 {"matmul_gflops", peak / 1e9},
                                 {"engine",
                                  {{"tokens_per_s", engineRate},
                                   {"mfu", engineRate * flopsPerToken / peak},
                                   {"runs", engine.runs}}},
                                 {"eager",
                                  {{"tokens_per_s", eagerRate},
                                   {"mfu", eagerRate * flopsPerToken / peak},
                                   {"runs", eager.runs}}},
                                 {"ratio", engineRate / eagerRate}};
  std::printf("| side | tokens/s (median of %d) | MFU | load avg (min-max) |\n|---|---|---|---|\n",
              options.repeats);
  for (const auto& [name, side] : {std::pair{"engine", &engine}, std::pair{"eager", &eager}}) {
    const auto [low, high] = std::minmax_element(side->loads.begin(), side->loads.end());
    std::printf(
        "| %s | %.1f | %.2f%% | %.2f-%.2f |\n", name, tb::perf::median(side->tokensPerSecond),
        100.0 * tb::perf::median(side->tokensPerSecond) * flopsPerToken / peak, *low, *high);
  }
  std::printf("\nengine / eager = %.3f (matmul probe %.1f GFLOP/s, %d threads)\n",
              engineRate / eagerRate, peak / 1e9, setup.threads);
  if (!options.out.empty()) {
    if (const auto written = tb::writeFileAtomically(options.out, result.dump(2)); !written) {
      return fail(written.error().message);
    }
  }
  return 0;
}
