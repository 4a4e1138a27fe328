// Benchmark: what the recompute planner buys over full recomputation at the
// same memory budget. It runs `trainbench run` (a fresh process per run, so
// each peak is that run's own) once with --recompute none to measure the
// no-recompute peak, sets the budget to a fraction of it, then alternates
// --recompute full and --recompute auto under that budget so that drifting
// machine load hits both alike, and prints a Markdown table of medians.
//
//   recompute_auto_vs_full [--binary PATH] [--fraction 0.7] [--repeats 3]
//                          [--steps 6] [--threads N] [--in-process] [--with-none]
//                          [--also POLICY]...
//                          [MODEL-FLAGS...]
//
// MODEL-FLAGS (default: --model small) are passed to trainbench unchanged.
//
// --in-process runs every run in this process through tb::engine::runTraining
// instead, under the same budget and tracking allocator. On a VM whose speed
// drifts between runs this is the steadier measure: the start-up matmul probe
// runs once, so every run computes on the same path and threads (a probe
// misled by a noisy neighbour once put a child run on one thread), and with
// no process start-up the two policies alternate within seconds. MODEL-FLAGS
// are then --model and --batch only.
//
// The median of the within-repeat ratios comes with a bootstrap 95 % interval.
//
// --also POLICY (repeatable) adds a run of that --recompute policy under the
// same budget to every repeat, reported against full like auto: a way to
// price another plan than the planner's on the same turns of the machine.
//
// --with-none adds a no-recompute run (no budget) to every repeat. auto
// cannot beat none, so none / full is the ceiling of auto / full on this
// machine: the share of it auto reaches says how much of the gap the plan
// leaves, apart from how much recomputation costs here at all.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "tb/common/statistics.hpp"
#include "tb/common/subprocess.hpp"
#include "tb/common/units.hpp"

#if TB_HAVE_ENGINE
#include "tb/engine/blas_kernels.hpp"
#include "tb/engine/trainer.hpp"
#include "tb/model/model_config.hpp"
#endif

namespace {

struct Options {
  std::string binary = TB_TRAINBENCH_BINARY;
  double fraction = 0.7;
  int repeats = 3;
  std::string steps = "6";
  std::string threads = "0";
  bool inProcess = false;
  bool withNone = false;
  std::vector<std::string> also;  ///< further policies run under the budget
  std::vector<std::string> modelFlags;
};

struct Run {
  std::string policy;  ///< as the summary reports it (auto resolved)
  double tokensPerSecond = 0;
  double peakBytes = 0;
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr, "recompute_auto_vs_full: %s\n", why.c_str());
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--in-process") {
#if TB_HAVE_ENGINE
      options.inProcess = true;
      continue;
#else
      usage("--in-process needs the training engine, which this build has not");
#endif
    }
    if (flag == "--with-none") {
      options.withNone = true;
      continue;
    }
    if (i + 1 >= argc) usage(flag + " needs a value");
    const std::string value = argv[++i];
    if (flag == "--binary") {
      options.binary = value;
    } else if (flag == "--fraction") {
      options.fraction = std::atof(value.c_str());
      if (!(options.fraction > 0.0 && options.fraction <= 1.0)) {
        usage("--fraction: '" + value + "' is not in (0, 1]");
      }
    } else if (flag == "--repeats") {
      options.repeats = std::atoi(value.c_str());
      if (options.repeats < 1) usage("--repeats: '" + value + "' is not a positive count");
    } else if (flag == "--steps") {
      options.steps = value;
    } else if (flag == "--threads") {
      options.threads = value;
    } else if (flag == "--also") {
      if (value == "none" || value == "full" || value == "auto") {
        usage("--also: '" + value + "' is run already");
      }
      options.also.push_back(value);
    } else {
      options.modelFlags.insert(options.modelFlags.end(), {flag, value});
    }
  }
  if (options.modelFlags.empty()) options.modelFlags = {"--model", "small"};
  return options;
}

#if TB_HAVE_ENGINE
Run trainInProcess(const Options& options, const std::string& policy, const std::string& budget) {
  using namespace tb::engine;
  std::string model = "small";
  std::int64_t batch = 0;  // 0: the preset's own
  for (std::size_t i = 0; i + 1 < options.modelFlags.size(); i += 2) {
    const std::string& flag = options.modelFlags[i];
    if (flag == "--model") {
      model = options.modelFlags[i + 1];
    } else if (flag == "--batch") {
      batch = std::atoll(options.modelFlags[i + 1].c_str());
      if (batch < 1) usage("--batch: '" + options.modelFlags[i + 1] + "' is not a positive count");
    } else {
      usage("--in-process takes --model and --batch only, not " + flag);
    }
  }
  const auto preset = tb::model::findPreset(model);
  if (!preset) usage(preset.error().message);
  RunConfig config;
  config.model = *preset;
  if (batch > 0) config.model.batch = batch;
  config.steps = std::atoll(options.steps.c_str());
  config.threads = std::atoi(options.threads.c_str());
  config.memoryBudgetBytes = budget.empty() ? 0 : std::stoull(budget);
  const auto recompute = parseRecomputePolicy(policy);
  if (!recompute) usage(recompute.error().message);
  config.recompute = *recompute;
  config.runDir = std::filesystem::temp_directory_path() / "tb_recompute_auto_vs_full";
  std::filesystem::remove_all(config.runDir);
  const auto summary = runTraining(config);
  std::filesystem::remove_all(config.runDir);
  if (!summary) usage("--recompute " + policy + ": " + summary.error().message);
  if (summary->state != RunState::Completed) {
    usage("--recompute " + policy + " did not complete: " + summary->message);
  }
  return {summary->recompute, summary->tokensPerSecond, static_cast<double>(summary->peakBytes)};
}
#endif

Run train(const Options& options, const std::string& policy, const std::string& budget) {
#if TB_HAVE_ENGINE
  if (options.inProcess) return trainInProcess(options, policy, budget);
#endif
  std::vector<std::string> argv{options.binary, "run",       "--steps",
                                options.steps,  "--threads", options.threads,
                                "--recompute",  policy,      "--json"};
  argv.insert(argv.end(), options.modelFlags.begin(), options.modelFlags.end());
  if (!budget.empty()) argv.insert(argv.end(), {"--memory-budget", budget});
  tb::ProcessOptions process;
  process.timeout = std::chrono::minutes(30);
  process.unsetEnvironment = {"CHECKPOINT_OPTIMIZATION"};
  const auto result = tb::runProcess(argv, process);
  if (!result) usage("cannot start " + options.binary + ": " + result.error().message);
  if (result->exitCode != 0) {
    usage("--recompute " + policy + " did not complete: " + result->standardError);
  }
  const auto summary = nlohmann::json::parse(result->standardOutput);
  return {summary["recompute"].get<std::string>(), summary["tokens_per_s"].get<double>(),
          summary["peak_bytes"].get<double>()};
}

/// The 2.5th and 97.5th percentiles of the median of `pairs` over resamples
/// of the repeats (a bootstrap, seeded so a rerun prints the same figures):
/// what "at the target" and "clearly above it" mean on a machine whose
/// speed drifts from run to run.
std::pair<double, double> medianInterval(const std::vector<double>& pairs) {
  constexpr int kResamples = 10000;
  std::mt19937 generator(20261201U);
  std::uniform_int_distribution<std::size_t> pick(0, pairs.size() - 1);
  std::vector<double> medians;
  medians.reserve(kResamples);
  std::vector<double> sample(pairs.size());
  for (int r = 0; r < kResamples; ++r) {
    for (double& value : sample) value = pairs[pick(generator)];
    medians.push_back(tb::median(sample));
  }
  std::sort(medians.begin(), medians.end());
  return {medians[kResamples / 40], medians[kResamples - 1 - kResamples / 40]};
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
#if TB_HAVE_ENGINE
  // trainbench run does the same for the child runs.
  if (options.inProcess) tb::engine::restartWithBlasKernelsForThisCpu(argv);
#endif
  const Run none = train(options, "none", "");
  const auto budget = static_cast<unsigned long long>(none.peakBytes * options.fraction);
  const std::string budgetText = std::to_string(budget);
  std::printf(
      "no-recompute: %.0f tokens/s (one run, no budget), peak %.1f MiB; "
      "budget %.0f %% = %llu bytes (%.1f MiB)\n",
      none.tokensPerSecond, none.peakBytes / tb::kMiB, options.fraction * 100.0, budget,
      static_cast<double>(budget) / tb::kMiB);

  std::map<std::string, std::vector<Run>> runs;
  std::vector<std::string> policies{"full", "auto"};
  policies.insert(policies.end(), options.also.begin(), options.also.end());
  if (options.withNone) policies.push_back("none");
  for (int repeat = 0; repeat < options.repeats; ++repeat) {
    // Each repeat turns the order by one and every other one reverses it
    // (ABBA for two policies): a machine that drifts over the run favours
    // no policy.
    std::vector<std::string> order = policies;
    std::rotate(order.begin(), order.begin() + (repeat / 2) % static_cast<int>(order.size()),
                order.end());
    if (repeat % 2 == 1) std::reverse(order.begin(), order.end());
    for (const std::string& policy : order) {
      const Run run = train(options, policy, policy == "none" ? "" : budgetText);
      std::printf("  repeat %d %-4s (%s): %.0f tokens/s, peak %.1f MiB\n", repeat + 1,
                  policy.c_str(), run.policy.c_str(), run.tokensPerSecond,
                  run.peakBytes / tb::kMiB);
      std::fflush(stdout);
      runs[policy].push_back(run);
    }
  }
  std::printf(
      "\n| --recompute | policy used | tokens/s (median of %d) | peak MiB (max) |\n"
      "|---|---|---|---|\n",
      options.repeats);
  std::map<std::string, double> speed;
  for (const std::string& policy : policies) {
    std::vector<double> rates;
    double peak = 0;
    for (const Run& run : runs[policy]) {
      rates.push_back(run.tokensPerSecond);
      peak = std::max(peak, run.peakBytes);
    }
    speed[policy] = tb::median(rates);
    std::printf("| %s%s | %s | %.0f | %.1f |\n", policy.c_str(),
                policy == "none" ? " (no budget)" : "", runs[policy].front().policy.c_str(),
                speed[policy], peak / tb::kMiB);
  }
  std::printf("\nauto / full tokens/s: %.2fx (target >= 1.2x)\n", speed["auto"] / speed["full"]);
  // Each repeat's runs ran back to back, so their ratio cancels whatever
  // slowed the machine for all of them; its median is the figure least moved
  // by a noisy neighbour.
  const auto withinRepeats = [&runs](const char* over, const char* under) {
    std::vector<double> pairs;
    for (std::size_t i = 0; i < runs[under].size(); ++i) {
      pairs.push_back(runs[over][i].tokensPerSecond / runs[under][i].tokensPerSecond);
    }
    const double middle = tb::median(pairs);
    const auto [low, high] = medianInterval(pairs);
    std::printf(
        "%s / %s within each repeat: median %.3fx (95 %% interval %.3fx to %.3fx), "
        "range %.2fx to %.2fx\n",
        over, under, middle, low, high, *std::min_element(pairs.begin(), pairs.end()),
        *std::max_element(pairs.begin(), pairs.end()));
    return middle;
  };
  const double autoOverFull = withinRepeats("auto", "full");
  for (const std::string& policy : options.also) (void)withinRepeats(policy.c_str(), "full");
  if (options.withNone) {
    std::printf("none / full tokens/s: %.2fx (the ceiling of auto / full)\n",
                speed["none"] / speed["full"]);
    const double ceiling = withinRepeats("none", "full");
    if (ceiling > 1.0) {
      std::printf("auto reaches %.0f %% of the ceiling's gain (medians within repeats)\n",
                  100.0 * (autoOverFull - 1.0) / (ceiling - 1.0));
    }
  }
  return 0;
}
