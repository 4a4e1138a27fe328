// Benchmark: what the recompute planner buys over full recomputation at the
// same memory budget. It runs `trainbench run` (a fresh process per run, so
// each peak is that run's own) once with --recompute none to measure the
// no-recompute peak, sets the budget to a fraction of it, then alternates
// --recompute full and --recompute auto under that budget so that drifting
// machine load hits both alike, and prints a Markdown table of medians.
//
//   recompute_auto_vs_full [--binary PATH] [--fraction 0.7] [--repeats 3]
//                          [--steps 6] [--threads N] [MODEL-FLAGS...]
//
// MODEL-FLAGS (default: --model small) are passed to trainbench unchanged.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "tb/common/subprocess.hpp"

namespace {

struct Options {
  std::string binary = TB_TRAINBENCH_BINARY;
  double fraction = 0.7;
  int repeats = 3;
  std::string steps = "6";
  std::string threads = "0";
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
    } else {
      options.modelFlags.insert(options.modelFlags.end(), {flag, value});
    }
  }
  if (options.modelFlags.empty()) options.modelFlags = {"--model", "small"};
  return options;
}

Run train(const Options& options, const std::string& policy, const std::string& budget) {
  std::vector<std::string> argv{options.binary, "run", "--steps", options.steps, "--threads",
                                options.threads, "--recompute", policy, "--json"};
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

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  const Run none = train(options, "none", "");
  const auto budget = static_cast<unsigned long long>(none.peakBytes * options.fraction);
  const std::string budgetText = std::to_string(budget);
  std::printf("no-recompute: %.0f tokens/s (one run, no budget), peak %.1f MiB; "
              "budget %.0f %% = %llu bytes (%.1f MiB)\n",
              none.tokensPerSecond, none.peakBytes / 1048576.0, options.fraction * 100.0, budget,
              static_cast<double>(budget) / 1048576.0);

  std::map<std::string, std::vector<Run>> runs;
  for (int repeat = 0; repeat < options.repeats; ++repeat) {
    // ABBA order: a machine that drifts over the run favours neither policy.
    const bool fullFirst = repeat % 2 == 0;
    for (const char* policy : {fullFirst ? "full" : "auto", fullFirst ? "auto" : "full"}) {
      const Run run = train(options, policy, budgetText);
      std::printf("  repeat %d %-4s (%s): %.0f tokens/s, peak %.1f MiB\n", repeat + 1, policy,
                  run.policy.c_str(), run.tokensPerSecond, run.peakBytes / 1048576.0);
      std::fflush(stdout);
      runs[policy].push_back(run);
    }
  }
  std::printf("\n| --recompute | policy used | tokens/s (median of %d) | peak MiB (max) |\n"
              "|---|---|---|---|\n", options.repeats);
  std::map<std::string, double> speed;
  for (const char* policy : {"full", "auto"}) {
    std::vector<double> rates;
    double peak = 0;
    for (const Run& run : runs[policy]) {
      rates.push_back(run.tokensPerSecond);
      peak = std::max(peak, run.peakBytes);
    }
    speed[policy] = median(rates);
    std::printf("| %s | %s | %.0f | %.1f |\n", policy, runs[policy].front().policy.c_str(),
                speed[policy], peak / 1048576.0);
  }
  std::printf("\nauto / full tokens/s: %.2fx (target >= 1.2x)\n", speed["auto"] / speed["full"]);
  // Each repeat's two runs ran back to back, so their ratio cancels whatever
  // slowed the machine for both; its median is the figure least moved by a
  // noisy neighbour.
  std::vector<double> pairs;
  for (std::size_t i = 0; i < runs["full"].size(); ++i) {
    pairs.push_back(runs["auto"][i].tokensPerSecond / runs["full"][i].tokensPerSecond);
  }
  std::printf("auto / full within each repeat: median %.2fx, range %.2fx to %.2fx\n",
              median(pairs), *std::min_element(pairs.begin(), pairs.end()),
              *std::max_element(pairs.begin(), pairs.end()));
  return 0;
}
