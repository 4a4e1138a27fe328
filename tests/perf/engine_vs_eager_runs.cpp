// Each side reports its own per-step wall times (the engine in its step
// events, Python in its JSON), timed around the same work: batch, forward,
// backward, clip, AdamW, loss read-back. Process start-up, library loading and
// the engine's matmul probe are outside both timings.
#include "engine_vs_eager_runs.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <system_error>

#include "tb/common/atomic_file.hpp"
#include "tb/common/subprocess.hpp"

namespace tb::perf {
namespace {

constexpr std::chrono::minutes kRunTimeout{30};

Expected<ProcessResult> runChecked(const std::vector<std::string>& argv,
                                   std::map<std::string, std::string> environment = {}) {
  ProcessOptions options;
  options.timeout = kRunTimeout;
  options.environment = std::move(environment);
  auto result = runProcess(argv, options);
  if (!result) return result.error();
  if (result->timedOut || result->exitCode != 0) {
    return makeError(ErrorKind::Runtime,
                     argv[0] + " " + argv[1] + " failed (exit " + std::to_string(result->exitCode) +
                         (result->timedOut ? ", timed out" : "") + "): " + result->standardError);
  }
  return result;
}

std::vector<double> dropWarmup(const std::vector<double>& steps, int warmup) {
  const auto skip = std::min(steps.size(), static_cast<std::size_t>(warmup));
  return {steps.begin() + static_cast<std::ptrdiff_t>(skip), steps.end()};
}

}  // namespace

double loadAverage() {
  std::ifstream file("/proc/loadavg");
  double oneMinute = 0.0;
  file >> oneMinute;
  return file ? oneMinute : 0.0;
}

Expected<SideRun> runEngine(const BenchSetup& setup, const std::string& tag,
                            const SideShape& shape) {
  const std::filesystem::path dir = std::filesystem::path(setup.scratchDir) / ("engine-" + tag);
  std::filesystem::remove_all(dir);
  std::error_code ignored;  // a failure shows up as trainbench's own error naming the path
  std::filesystem::create_directories(setup.scratchDir, ignored);
  const std::filesystem::path events = dir.string() + ".events.jsonl";
  SideRun run;
  run.loadBefore = loadAverage();
  std::vector<std::string> argv{setup.trainbench, "run",
                                "--model",        setup.presetName,
                                "--recompute",    "none",
                                "--steps",        std::to_string(setup.steps),
                                "--threads",      std::to_string(setup.threads),
                                "--json",         "--events",
                                events.string(),  "--run-dir",
                                dir.string()};
  if (shape.processes > 1) {
    argv.insert(argv.end(),
                {"--nproc-per-node", std::to_string(shape.processes), "--master-port", "0"});
  }
  argv.insert(argv.end(), shape.engineFlags.begin(), shape.engineFlags.end());
  auto result = runChecked(argv);
  if (!result) return result.error();
  auto eventText = readFile(events);
  if (!eventText) return eventText.error();
  std::vector<double> steps;
  std::vector<double> waits;
  std::vector<double> cpu;
  try {
    const auto summary = nlohmann::json::parse(result->standardOutput);
    run.matmulGflops = summary.at("matmul_gflops").get<double>();
    run.lossFirst = summary.at("loss_first").get<double>();
    std::istringstream lines(*eventText);
    for (std::string line; std::getline(lines, line);) {
      const auto event = nlohmann::json::parse(line);
      if (event.value("event", "") != "step") continue;
      steps.push_back(event.at("step_time_s"));
      if (event.contains("comm_wait_s")) waits.push_back(event.at("comm_wait_s"));
      if (event.contains("cpu_s")) cpu.push_back(event.at("cpu_s"));
    }
  } catch (const nlohmann::json::exception& error) {
    return makeError(ErrorKind::Runtime,
                     "unexpected output of trainbench run: " + std::string(error.what()));
  }
  std::filesystem::remove_all(dir);
  std::filesystem::remove(events);
  run.stepSeconds = dropWarmup(steps, setup.warmupSteps);
  run.commWaitSeconds = dropWarmup(waits, setup.warmupSteps);
  run.cpuSeconds = dropWarmup(cpu, setup.warmupSteps);
  if (run.stepSeconds.empty()) {
    return makeError(ErrorKind::Runtime, "trainbench run reported no steps past the warm-up");
  }
  return run;
}

Expected<SideRun> runEager(const BenchSetup& setup, const SideShape& shape) {
  const model::ModelConfig& m = setup.model;
  SideRun run;
  run.loadBefore = loadAverage();
  std::vector<std::string> argv;
  std::error_code ignored;
  std::filesystem::create_directories(setup.scratchDir, ignored);
  const std::filesystem::path report =
      std::filesystem::path(setup.scratchDir) / "eager-report.json";
  std::filesystem::remove(report, ignored);
  if (shape.processes > 1) {
    // Static rendezvous on a port of the kernel's choosing is not torchrun
    // 1.13's; --standalone's fixed port is free when nothing else runs.
    // Single-bit --redirects/--tee: its defaults crash on Python 3.11.
    argv = {setup.torchrun,
            "--standalone",
            "--nproc_per_node=" + std::to_string(shape.processes),
            "--redirects",
            "2",
            "--tee",
            "1",
            "--log_dir",
            (std::filesystem::path(setup.scratchDir) / "torchrun-logs").string()};
  } else {
    argv = {setup.python};
  }
  argv.insert(argv.end(), {setup.eagerScript,
                           "--vocab",
                           std::to_string(m.vocab),
                           "--dim",
                           std::to_string(m.dim),
                           "--layers",
                           std::to_string(m.layers),
                           "--heads",
                           std::to_string(m.heads),
                           "--kv-heads",
                           std::to_string(m.kvHeads),
                           "--ffn",
                           std::to_string(m.ffn),
                           "--seq",
                           std::to_string(m.seq),
                           "--batch",
                           std::to_string(m.batch),
                           "--rope-theta",
                           std::to_string(m.ropeTheta),
                           "--steps",
                           std::to_string(setup.steps),
                           "--threads",
                           std::to_string(setup.threads),
                           "--out",
                           report.string()});
  if (shape.processes > 1) argv.push_back("--ddp");
  // torch.set_num_threads does not reach the pool of Debian's threaded
  // OpenBLAS, which PyTorch's products run on: without this, "1 thread"
  // eager multiplied on every core (measured: 121 % of the engine's
  // one-thread probe), and two DDP ranks oversubscribed the machine.
  auto result = runChecked(argv, {{"OPENBLAS_NUM_THREADS", std::to_string(setup.threads)}});
  if (!result) return result.error();
  auto reportText = readFile(report);
  if (!reportText) return reportText.error();
  try {
    const auto document = nlohmann::json::parse(*reportText);
    run.stepSeconds =
        dropWarmup(document.at("step_times").get<std::vector<double>>(), setup.warmupSteps);
    run.lossFirst = document.at("losses").at(0).get<double>();
    if (document.contains("cpu_times")) {
      run.cpuSeconds =
          dropWarmup(document.at("cpu_times").get<std::vector<double>>(), setup.warmupSteps);
    }
  } catch (const nlohmann::json::exception& error) {
    return makeError(ErrorKind::Runtime, "unexpected output of " + setup.eagerScript + ": " +
                                             std::string(error.what()));
  }
  if (run.stepSeconds.empty()) {
    return makeError(ErrorKind::Runtime, setup.eagerScript + " reported no steps past warm-up");
  }
  return run;
}

}  // namespace tb::perf
