// ddp_scaling: the engine's data parallelism against PyTorch's own DDP, side
// by side in one run (issue "Data-parallel training across processes and
// nodes"; docs/PERF.md). Every repeat runs these sides, in this order and
// the next repeat in the reverse one, so that a drift of the machine's speed
// falls on every side alike:
//
//   engine 1 rank, engine 2 ranks, eager 1 rank, DDP 2 ranks (torchrun, Gloo),
//   compiled engine 1 rank, compiled engine 2 ranks, engine 2 ranks with one
//   all-reduce after backward (--bucket-mb 0), engine 2 ranks with AdamW's
//   moments sharded (--zero 1)
//
// each rank with --threads threads (default 1) on the same model (the parity
// test's reference, engine_vs_eager.py), each a fresh process. It reports
// scaling efficiency (2-rank global tokens/s over twice the 1-rank tokens/s)
// for the engine and for DDP, the engine over DDP at 2 ranks against the
// engine over eager at 1 rank, and how long backward's end waits on
// communication with buckets against one all-reduce, and what sharding the
// moments does to a step (the update's slices gathered after it). Each ratio
// is taken within a repeat, between sides that ran minutes apart at most, and
// the median over the repeats reported with its range: a host whose speed
// drifts by a quarter within minutes moves the sides' medians further than
// the effects measured here, but both sides of a pair alike.
// Rank 0's CPU time per step (every thread: compute and the collectives)
// beside its wall time says where a multi-rank step's extra time goes: the
// collectives' own work, or waiting.
//
//   ddp_scaling [--model small] [--repeats 3] [--steps 16] [--warmup 4]
//               [--threads 1] [--out results.json]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "engine_vs_eager_runs.hpp"
#include "tb/common/atomic_file.hpp"
#include "tb/engine/blas_kernels.hpp"

namespace {

using tb::perf::BenchSetup;
using tb::perf::SideRun;
using tb::perf::SideShape;

constexpr int kRanks = 2;

struct Side {
  std::string name;
  bool engine = true;
  SideShape shape;
  std::vector<double> tokensPerSecond;  ///< one per repeat, global
  std::vector<double> stepSeconds;      ///< medians per repeat
  std::vector<double> waitSeconds;      ///< medians per repeat (engine, several ranks)
  std::vector<double> cpuSeconds;       ///< rank 0's CPU time per step, medians per repeat
  std::vector<double> loads;
};

int fail(const std::string& message) {
  std::cerr << "ddp_scaling: " << message << "\n";
  return 1;
}

std::string parse(int argc, char** argv, BenchSetup& setup, int& repeats, std::string& out) {
  std::map<std::string, int*> numbers{{"--repeats", &repeats},
                                      {"--steps", &setup.steps},
                                      {"--warmup", &setup.warmupSteps},
                                      {"--threads", &setup.threads}};
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) return flag + " needs a value";
    const std::string value = argv[++i];
    if (const auto number = numbers.find(flag); number != numbers.end()) {
      char* end = nullptr;
      const long parsed = std::strtol(value.c_str(), &end, 10);
      if (end == value.c_str() || *end != '\0' || parsed < 1 || parsed > 100000) {
        return flag + " must be a positive count, got " + value;
      }
      *number->second = static_cast<int>(parsed);
    } else if (flag == "--model") {
      setup.presetName = value;
    } else if (flag == "--out") {
      out = value;
    } else {
      return "unknown option " + flag;
    }
  }
  if (setup.steps <= setup.warmupSteps) return "--steps must exceed --warmup";
  auto preset = tb::model::findPreset(setup.presetName);
  if (!preset) return preset.error().message;
  setup.model = *preset;
  return {};
}

/// a's tokens/s over b's, repeat by repeat.
std::vector<double> ratios(const Side& a, const Side& b, double scale = 1.0) {
  std::vector<double> each;
  for (std::size_t r = 0; r < std::min(a.tokensPerSecond.size(), b.tokensPerSecond.size()); ++r) {
    each.push_back(a.tokensPerSecond[r] / b.tokensPerSecond[r] * scale);
  }
  return each;
}

std::string summarised(const std::vector<double>& each) {
  const auto [low, high] = std::minmax_element(each.begin(), each.end());
  char text[64];
  std::snprintf(text, sizeof text, "%.3f (%.3f-%.3f)", tb::perf::median(each), *low, *high);
  return text;
}

nlohmann::json ratioJson(const std::vector<double>& each) {
  return {{"median", tb::perf::median(each)}, {"repeats", each}};
}

nlohmann::json sideJson(const Side& side) {
  nlohmann::json json{{"processes", side.shape.processes},
                      {"tokens_per_s", tb::perf::median(side.tokensPerSecond)},
                      {"tokens_per_s_runs", side.tokensPerSecond},
                      {"median_step_s", tb::perf::median(side.stepSeconds)},
                      {"load_before", side.loads}};
  if (!side.waitSeconds.empty()) json["median_comm_wait_s"] = tb::perf::median(side.waitSeconds);
  if (!side.cpuSeconds.empty()) json["median_cpu_s"] = tb::perf::median(side.cpuSeconds);
  return json;
}

}  // namespace

int main(int argc, char** argv) {
  // Both sides on trainbench's OpenBLAS kernels, as in engine_vs_eager.
  tb::engine::restartWithBlasKernelsForThisCpu(argv);
  BenchSetup setup;
  setup.trainbench = TB_TRAINBENCH_BINARY;
  setup.python = "/usr/bin/python3";
  setup.eagerScript = TB_EAGER_SCRIPT;
  setup.presetName = "small";
  setup.steps = 16;
  setup.warmupSteps = 4;
  setup.threads = 1;
  setup.scratchDir = (std::filesystem::temp_directory_path() / "tb_ddp_scaling").string();
  int repeats = 3;
  std::string out;
  if (const std::string problem = parse(argc, argv, setup, repeats, out); !problem.empty()) {
    std::cerr << "ddp_scaling: " << problem << "\nusage: ddp_scaling [--model NAME] "
              << "[--repeats N] [--steps N] [--warmup N] [--threads N] [--out FILE]\n";
    return 2;
  }

  const auto makeSide = [](std::string name, bool engine, SideShape shape) {
    Side made;
    made.name = std::move(name);
    made.engine = engine;
    made.shape = std::move(shape);
    return made;
  };
  std::vector<Side> sides{
      makeSide("engine x1", true, {1, {}}),
      makeSide("engine x2", true, {kRanks, {}}),
      makeSide("eager x1", false, {1, {}}),
      makeSide("DDP x2", false, {kRanks, {}}),
      makeSide("engine compiled x1", true, {1, {"--compile", "on"}}),
      makeSide("engine compiled x2", true, {kRanks, {"--compile", "on"}}),
      makeSide("engine x2, one all-reduce", true, {kRanks, {"--bucket-mb", "0"}}),
      makeSide("engine x2, ZeRO-1", true, {kRanks, {"--zero", "1"}}),
  };
  const double tokensPerRankStep = static_cast<double>(setup.model.batch * setup.model.seq);
  for (int repeat = 0; repeat < repeats; ++repeat) {
    for (std::size_t n = 0; n < sides.size(); ++n) {
      const std::size_t i = repeat % 2 == 0 ? n : sides.size() - 1 - n;
      Side& side = sides[i];
      auto run = side.engine
                     ? tb::perf::runEngine(setup, std::to_string(repeat) + "-" + std::to_string(i),
                                           side.shape)
                     : tb::perf::runEager(setup, side.shape);
      if (!run) return fail(side.name + ": " + run.error().message);
      const double step = tb::perf::median(run->stepSeconds);
      side.stepSeconds.push_back(step);
      side.tokensPerSecond.push_back(tokensPerRankStep * side.shape.processes / step);
      side.loads.push_back(run->loadBefore);
      if (!run->commWaitSeconds.empty()) {
        side.waitSeconds.push_back(tb::perf::median(run->commWaitSeconds));
      }
      if (!run->cpuSeconds.empty()) side.cpuSeconds.push_back(tb::perf::median(run->cpuSeconds));
      std::fprintf(stderr, "repeat %d/%d %-26s %8.1f tok/s  step %.4f s\n", repeat + 1, repeats,
                   side.name.c_str(), side.tokensPerSecond.back(), step);
    }
  }

  const Side& engine1 = sides[0];
  const Side& engine2 = sides[1];
  const Side& eager1 = sides[2];
  const Side& ddp2 = sides[3];
  const Side& compiled1 = sides[4];
  const Side& compiled2 = sides[5];
  const Side& oneBucket = sides[6];
  const Side& zero1 = sides[7];
  const double half = 1.0 / kRanks;
  const auto engineScaling = ratios(engine2, engine1, half);
  const auto ddpScaling = ratios(ddp2, eager1, half);
  const auto compiledScaling = ratios(compiled2, compiled1, half);
  const auto engineOverDdp = ratios(engine2, ddp2);
  const auto compiledOverDdp = ratios(compiled2, ddp2);
  const auto engineOverEager = ratios(engine1, eager1);
  const auto compiledOverEager = ratios(compiled1, eager1);
  const auto zeroOneOverZero = ratios(zero1, engine2);

  std::printf(
      "| side | processes x threads | tokens/s (median of %d) | step s | CPU s | "
      "comm wait s |\n|---|---|---|---|---|---|\n",
      repeats);
  const auto cell = [](const std::vector<double>& values) {
    return values.empty() ? std::string("-") : std::to_string(tb::perf::median(values));
  };
  for (const Side& side : sides) {
    std::printf("| %s | %d x %d | %.1f | %.4f | %s | %s |\n", side.name.c_str(),
                side.shape.processes, setup.threads, tb::perf::median(side.tokensPerSecond),
                tb::perf::median(side.stepSeconds), cell(side.cpuSeconds).c_str(),
                cell(side.waitSeconds).c_str());
  }
  std::printf(
      "\nratios within each repeat, median (range):\n"
      "scaling efficiency at %d ranks: engine %s, compiled engine %s, PyTorch DDP %s\n",
      kRanks, summarised(engineScaling).c_str(), summarised(compiledScaling).c_str(),
      summarised(ddpScaling).c_str());
  std::printf(
      "engine / DDP at %d ranks: %s (compiled %s); engine / eager at 1: %s "
      "(compiled %s)\n",
      kRanks, summarised(engineOverDdp).c_str(), summarised(compiledOverDdp).c_str(),
      summarised(engineOverEager).c_str(), summarised(compiledOverEager).c_str());
  // What a rank's step costs in CPU beyond the same step alone: the
  // collectives' own work (Gloo's reductions, the loopback copies), which on
  // a machine with a core per rank and nothing spare comes out of compute.
  const auto extraCpu = [](const Side& many, const Side& one) {
    if (many.cpuSeconds.empty() || one.cpuSeconds.empty()) return std::nan("");
    return tb::perf::median(many.cpuSeconds) - tb::perf::median(one.cpuSeconds);
  };
  const auto extraStep = [](const Side& many, const Side& one) {
    return tb::perf::median(many.stepSeconds) - tb::perf::median(one.stepSeconds);
  };
  std::printf(
      "a %d-rank step over a 1-rank step: engine +%.4f s wall, +%.4f s CPU; "
      "PyTorch DDP +%.4f s wall, +%.4f s CPU (rank 0)\n",
      kRanks, extraStep(engine2, engine1), extraCpu(engine2, engine1), extraStep(ddp2, eager1),
      extraCpu(ddp2, eager1));
  std::printf(
      "comm wait after backward: %.4f s with buckets, %.4f s with one all-reduce "
      "(step %.4f s vs %.4f s)\n",
      tb::perf::median(engine2.waitSeconds), tb::perf::median(oneBucket.waitSeconds),
      tb::perf::median(engine2.stepSeconds), tb::perf::median(oneBucket.stepSeconds));
  std::printf("ZeRO-1 at %d ranks: tokens/s over ZeRO-0's %s (step %.4f s vs %.4f s)\n", kRanks,
              summarised(zeroOneOverZero).c_str(), tb::perf::median(zero1.stepSeconds),
              tb::perf::median(engine2.stepSeconds));

  nlohmann::json result{
      {"model", setup.presetName},
      {"threads_per_rank", setup.threads},
      {"repeats", repeats},
      {"steps", setup.steps},
      {"warmup_steps", setup.warmupSteps},
      {"scaling_efficiency",
       {{"engine", ratioJson(engineScaling)},
        {"engine_compiled", ratioJson(compiledScaling)},
        {"pytorch_ddp", ratioJson(ddpScaling)}}},
      {"engine_over_ddp", ratioJson(engineOverDdp)},
      {"compiled_over_ddp", ratioJson(compiledOverDdp)},
      {"engine_over_eager", ratioJson(engineOverEager)},
      {"compiled_over_eager", ratioJson(compiledOverEager)},
      {"zero1_over_zero0", ratioJson(zeroOneOverZero)},
      {"extra_cpu_s_per_rank_step",
       {{"engine", extraCpu(engine2, engine1)}, {"pytorch_ddp", extraCpu(ddp2, eager1)}}}};
  for (const Side& side : sides) result["sides"][side.name] = sideJson(side);
  if (!out.empty()) {
    if (const auto written = tb::writeFileAtomically(out, result.dump(2)); !written) {
      return fail(written.error().message);
    }
  }
  return 0;
}
