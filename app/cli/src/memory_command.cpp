// `trainbench memory`: the predicted peak of one training job with every term
// shown. With --gpu-memory it is also a check (exit 3 when it does not fit),
// so a script can gate a launch on it.
#include <CLI/CLI.hpp>

#include <memory>
#include <ostream>

#include "command.hpp"
#include "exit_codes.hpp"
#include "memory_calibrate.hpp"
#include "memory_inputs.hpp"
#include "memory_report.hpp"

namespace tb::cli {
namespace {

/// The share of a card above which a reserved peak is near its capacity: the
/// measured H100 rows raised until nearly out of memory all sit above it.
constexpr double kNearCapacity = 0.88;

struct MemoryOptions {
  PredictionFlags prediction;
  std::string recompute = "none";
  std::string calibrate;  ///< measurements file or run store; fits and stores instead of predicting
};

int runMemory(const CommandContext& context, const MemoryOptions& options) {
  if (!options.calibrate.empty()) {
    return runCalibrate(context, options.calibrate, options.prediction.json);
  }
  auto resolved = resolvePrediction(options.prediction);
  if (!resolved) return context.fail(resolved.error());
  auto policy = memory::parseRecompute(options.recompute);
  if (!policy) return context.fail(policy.error());
  resolved->input.recompute = *policy;
  std::optional<std::uint64_t> budget;
  if (!options.prediction.gpuMemory.empty()) {
    auto bytes = parseGpuMemory(options.prediction.gpuMemory);
    if (!bytes) return context.fail(bytes.error());
    budget = *bytes;
  }
  auto prediction = memory::predictMemory(resolved->input);
  if (!prediction) return context.fail(prediction.error());
  if (resolved->calibration) {
    const std::uint64_t corrected = resolved->calibration->apply(prediction->totalBytes);
    prediction->calibrationBytes =
        static_cast<std::int64_t>(corrected) - static_cast<std::int64_t>(prediction->totalBytes);
    prediction->totalBytes = corrected;
  }
  const memory::MemoryPrediction& p = *prediction;
  const std::string mapping = memory::recomputeMapping(options.recompute);
  // Plain bools rather than optional<bool>: GCC 12 at -O2 reports the
  // optional's flag as maybe-uninitialized.
  const bool hasBudget = budget.has_value();
  const bool fits = hasBudget && p.totalBytes <= *budget;

  if (options.prediction.json) {
    Json document = jobJson(resolved->input, resolved->runtime);
    document["recompute"] = memory::toString(*policy);
    document["params"] = p.params;
    document["params_per_rank"] = p.paramsPerRank;
    document["recompute_mapping"] = mapping.empty() ? Json(nullptr) : Json(mapping);
    document["total_bytes"] = p.totalBytes;
    document["allocated_bytes"] = p.allocatedBytes;
    document["reserved_bytes"] = p.totalBytes;
    document["allocator_slack"] =
        memory::allocatorSlack(resolved->input.profile, resolved->input.compiledStep);
    document["breakdown"] = breakdownJson(p.breakdown);
    document["calibration_bytes"] = p.calibrationBytes;
    document["calibration"] = calibrationJson(resolved->calibration);
    document["peak_phase"] = p.peakPhase;
    document["per_layer_bytes"] = {{"kept", p.perLayer.kept},
                                   {"selective", p.perLayer.selective},
                                   {"checkpoint", p.perLayer.checkpoint}};
    document["time_ratio"] = p.timeRatio;
    document["gpu_memory_bytes"] = budget ? Json(*budget) : Json(nullptr);
    document["fits"] = hasBudget ? Json(fits) : Json(nullptr);
    printJson(context.out(), document);
  } else {
    std::ostream& out = context.out();
    out << resolved->input.model.name << " (" << p.params << " parameters), profile "
        << memory::toString(resolved->input.profile) << ", "
        << memory::toString(resolved->input.parallel.dtype) << ", recompute "
        << memory::toString(*policy) << (resolved->input.compiledStep ? ", compiled step" : "")
        << (resolved->runtime.empty() ? "" : ", runtime " + resolved->runtime) << "\n";
    if (!mapping.empty()) out << "recompute " << mapping << "\n";
    out << "peak " << formatBytes(p.totalBytes) << " per rank (" << p.peakPhase << ")";
    if (p.allocatedBytes != p.breakdown.total()) {
      out << ": " << formatBytes(p.allocatedBytes) << " allocated by tensors, the rest held in "
          << "the caching allocator's cache";
    }
    out << "\n\n";
    printBreakdown(out, p.breakdown);
    if (p.calibrationBytes != 0) {
      out << "\ncalibration: " << (p.calibrationBytes > 0 ? "+" : "-")
          << formatBytes(static_cast<std::uint64_t>(p.calibrationBytes > 0 ? p.calibrationBytes
                                                                           : -p.calibrationBytes))
          << " (stored fit for this profile; --no-calibration to ignore)\n";
    }
    if (hasBudget) {
      out << '\n' << (fits ? "fits in " : "does NOT fit in ") << formatBytes(*budget) << '\n';
      // Near the card's capacity PyTorch's caching allocator keeps what it
      // can, so a reserved peak measured there says little of the need.
      if (p.allocatedBytes != p.breakdown.total() &&
          static_cast<double>(p.totalBytes) > kNearCapacity * static_cast<double>(*budget)) {
        out << "near capacity: there the caching allocator grows its reserve to fill the card, "
               "so a measured reserved peak is only an upper bound of what the job needs "
               "(docs/MEMORY.md)\n";
      }
    }
  }
  return hasBudget && !fits ? kExitCheckFailed : kExitSuccess;
}

}  // namespace

RegisteredCommand registerMemoryCommand(CLI::App& app) {
  auto options = std::make_shared<MemoryOptions>();
  CLI::App* command =
      app.add_subcommand("memory", "Predict the peak memory of a training job, term by term");
  addPredictionFlags(*command, options->prediction,
                     "Memory of one device in GiB: says whether the prediction fits "
                     "(default: no check)");
  command
      ->add_option("--recompute", options->recompute,
                   "none (default), selective, selective:MODULES (core_attn, layernorm, "
                   "mlp_act; head: the engine's chunked output head), full, layers:K, "
                   "layers:K+selective[:MODULES], op, every:N, uniform:N, or as a "
                   "framework names it: torchtitan:full|op|every:N, "
                   "megatron:selective[:MODULES]|full:uniform:N|full:block:N, "
                   "deepspeed:checkpointing, hf:gradient_checkpointing")
      ->type_name("POLICY");
  command
      ->add_option("--calibrate", options->calibrate,
                   "Fit and store the per-profile correction from measured peaks in FILE, "
                   "or from the completed runs of a run store DIR such as "
                   "$XDG_DATA_HOME/trainbench/runs (docs/CLI.md), reporting the error "
                   "before and after")
      ->type_name("FILE|DIR");
  takeLastOfRepeatedValues(*command);
  command->footer(
      "Sizes are per rank, in bytes in JSON. Cluster profiles predict the peak reserved\n"
      "memory of PyTorch's caching allocator. What each term rests on: docs/MEMORY.md.\n"
      "Exit codes: 0 predicted (and fits, with --gpu-memory); 3 does not fit; 2 bad input.");
  return {command,
          [options](const CommandContext& context) { return runMemory(context, *options); }};
}

}  // namespace tb::cli
