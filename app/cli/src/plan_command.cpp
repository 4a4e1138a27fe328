// `trainbench plan`: the least recomputation that fits a device, and the
// whole trade-off curve. A budget nothing fits in is an answer, not a crash:
// exit 3 with the smallest budget that would fit, on stderr and in JSON.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <ostream>

#include "command.hpp"
#include "exit_codes.hpp"
#include "memory_inputs.hpp"
#include "memory_report.hpp"
#include "tb/memory/planner.hpp"

namespace tb::cli {
namespace {

struct PlanOptions {
  PredictionFlags prediction;
  double margin = memory::kDefaultPlanMargin;
};

std::string percent(double ratio) {
  char text[16];
  std::snprintf(text, sizeof(text), "%+.1f%%", 100.0 * ratio);
  return text;
}

std::int64_t recomputedLayers(const memory::RecomputePlan& plan, std::int64_t stageLayers) {
  switch (plan.policy.kind) {
    case memory::RecomputeKind::Full: return stageLayers;
    case memory::RecomputeKind::Layers: return plan.policy.layers;
    case memory::RecomputeKind::None:
    case memory::RecomputeKind::Selective:
    case memory::RecomputeKind::Op:
    case memory::RecomputeKind::Every:
    case memory::RecomputeKind::Uniform: return 0;
  }
  return 0;
}

Json planJson(const ResolvedPrediction& resolved, const memory::RecomputePlan& plan) {
  Json document = jobJson(resolved.input, resolved.runtime);
  const std::int64_t stageLayers = static_cast<std::int64_t>(plan.curve.size()) - 1;
  document["fits"] = plan.fits;
  document["policy"] = plan.fits ? Json(memory::toString(plan.policy)) : Json(nullptr);
  const std::string spelling =
      plan.fits ? memory::frameworkSpelling(resolved.input.profile, plan.policy) : std::string();
  document["framework_spelling"] = spelling.empty() ? Json(nullptr) : Json(spelling);
  document["recompute_layers"] =
      plan.fits ? Json(recomputedLayers(plan, stageLayers)) : Json(nullptr);
  document["predicted_peak_bytes"] = plan.fits ? Json(plan.predictedPeakBytes) : Json(nullptr);
  document["budget_bytes"] = plan.budgetBytes;
  document["margin"] = plan.margin;
  document["time_overhead_ratio"] = plan.fits ? Json(plan.timeOverheadRatio) : Json(nullptr);
  document["smallest_budget_bytes"] = plan.smallestBudgetBytes;
  document["calibration"] = calibrationJson(resolved.calibration);
  document["selective"] = {{"peak_bytes", plan.selective.peakBytes},
                           {"time_ratio", plan.selective.timeRatio}};
  document["next_cheaper"] = plan.nextCheaper
                                 ? Json{{"policy", memory::toString(*plan.nextCheaper)},
                                        {"peak_bytes", plan.nextCheaperPoint.peakBytes},
                                        {"time_ratio", plan.nextCheaperPoint.timeRatio}}
                                 : Json(nullptr);
  Json curve = Json::array();
  for (const memory::CurvePoint& point : plan.curve) {
    curve.push_back(
        {{"k", point.k}, {"peak_bytes", point.peakBytes}, {"time_ratio", point.timeRatio}});
  }
  document["curve"] = curve;
  return document;
}

void printPlan(std::ostream& out, const ResolvedPrediction& resolved,
               const memory::RecomputePlan& plan) {
  const memory::PredictionInput& input = resolved.input;
  out << input.model.name << ", profile " << memory::toString(input.profile)
      << (input.compiledStep ? ", compiled step" : "")
      << (resolved.runtime.empty() ? "" : ", runtime " + resolved.runtime) << ", budget "
      << formatBytes(plan.budgetBytes) << " less a " << percent(plan.margin).substr(1)
      << " margin\n";
  if (plan.fits) {
    out << "recommended: --recompute " << memory::toString(plan.policy) << ", peak "
        << formatBytes(plan.predictedPeakBytes) << ", step time " << percent(plan.timeOverheadRatio)
        << "\n";
    const std::string spelling = memory::frameworkSpelling(input.profile, plan.policy);
    if (!spelling.empty()) {
      out << "as " << memory::toString(input.profile) << " spells it: " << spelling << "\n";
    }
    out << "\n";
  } else {
    out << "nothing fits; the smallest budget that would is "
        << formatBytes(plan.smallestBudgetBytes) << "\n\n";
  }
  TextTable table({"RECOMPUTE", "PEAK", "STEP TIME"});
  for (const memory::CurvePoint& point : plan.curve) {
    table.addRow({point.k == 0 ? "none" : "layers:" + std::to_string(point.k),
                  formatBytes(point.peakBytes), percent(point.timeRatio - 1.0)});
  }
  table.addRow({"selective", formatBytes(plan.selective.peakBytes),
                percent(plan.selective.timeRatio - 1.0)});
  // Plain selective has its row above; any other off-curve choice gets one.
  const bool offCurve = plan.fits && !memory::curveK(plan) &&
                        plan.policy != memory::RecomputePolicy{memory::RecomputeKind::Selective, 0};
  if (offCurve) {
    table.addRow({memory::toString(plan.policy), formatBytes(plan.predictedPeakBytes),
                  percent(plan.timeOverheadRatio)});
  }
  table.print(out);
}

int runPlan(const CommandContext& context, const PlanOptions& options) {
  auto resolved = resolvePrediction(options.prediction);
  if (!resolved) return context.fail(resolved.error());
  if (options.prediction.gpuMemory.empty()) {
    return context.fail(makeError(ErrorKind::BadInput,
                                  "plan: --gpu-memory GIB is required (the budget to plan for)"));
  }
  auto budget = parseGpuMemory(options.prediction.gpuMemory);
  if (!budget) return context.fail(budget.error());
  const auto& calibration = resolved->calibration;
  auto plan = memory::planRecompute(resolved->input, *budget, options.margin,
                                    calibration ? calibration->offsetBytes : 0,
                                    calibration ? calibration->scale : 1.0);
  if (!plan) return context.fail(plan.error());

  if (options.prediction.json) {
    printJson(context.out(), planJson(*resolved, *plan));
  } else {
    printPlan(context.out(), *resolved, *plan);
  }
  if (plan->fits) return kExitSuccess;
  context.err() << "trainbench: plan: no recompute policy fits in "
                << formatBytes(plan->budgetBytes) << " with a " << percent(plan->margin).substr(1)
                << " margin; the smallest budget that fits is "
                << formatBytes(plan->smallestBudgetBytes) << " (" << plan->smallestBudgetBytes
                << " bytes)\n";
  return kExitCheckFailed;
}

}  // namespace

RegisteredCommand registerPlanCommand(CLI::App& app) {
  auto options = std::make_shared<PlanOptions>();
  CLI::App* command = app.add_subcommand(
      "plan", "The least activation recomputation that fits a memory budget, and the curve");
  addPredictionFlags(*command, options->prediction,
                     "Memory of one device in GiB, the budget to plan for (required)");
  command
      ->add_option("--margin", options->margin,
                   "Share of the budget kept free, 0 to <1 (default 0.05)")
      ->type_name("FRACTION");
  takeLastOfRepeatedValues(*command);
  command->footer(
      "Candidates: layers:K (the first K blocks of each stage fully recomputed, K = 0..L),\n"
      "selective:MODULES (core_attn, layernorm, mlp_act: rebuilt in every block; head:\n"
      "the engine's output head, chunked, in its plain float32 step) and\n"
      "layers:K+selective:MODULES; the cheapest in step time that fits wins. Recomputing\n"
      "a block costs one more forward of it. Exit codes: 0 a plan fits; 3 nothing fits\n"
      "(the smallest budget that would is printed); 2 bad input. Fields: docs/CLI.md.");
  return {command, [options](const CommandContext& context) { return runPlan(context, *options); }};
}

}  // namespace tb::cli
