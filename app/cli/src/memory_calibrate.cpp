// Measurements are described with the same names as the command-line flags
// and resolved by the same code (model_flags.cpp), so a measurement that the
// CLI would refuse is refused here with the same message, prefixed by its
// position in the file. Runs of the run store are read through core/runs,
// whose records already hold the resolved model the run trained.
#include "memory_calibrate.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <ostream>
#include <stdexcept>

#include "exit_codes.hpp"
#include "memory_inputs.hpp"
#include "output.hpp"
#include "tb/common/atomic_file.hpp"
#include "tb/runs/run_store.hpp"

namespace tb::cli {
namespace {

Error badEntry(const std::string& path, std::size_t index, const std::string& message) {
  return makeError(ErrorKind::BadInput, "--calibrate: " + path + ": measurement " +
                                            std::to_string(index + 1) + ": " + message);
}

Expected<memory::MeasuredPeak> readOne(const Json& entry) {
  if (!entry.is_object()) return makeError(ErrorKind::BadInput, "not an object");
  const auto integer = [&entry](const char* key) -> std::optional<std::int64_t> {
    if (!entry.contains(key)) return std::nullopt;
    if (!entry[key].is_number_integer()) throw std::invalid_argument(key);
    return entry[key].get<std::int64_t>();
  };
  const auto text = [&entry](const char* key, const char* fallback) -> std::string {
    if (!entry.contains(key)) return fallback;
    if (!entry[key].is_string()) throw std::invalid_argument(key);
    return entry[key].get<std::string>();
  };
  try {
    ModelFlags model;
    model.model = text("model", "tiny");
    model.overrides = {integer("vocab"),    integer("dim"), integer("layers"), integer("heads"),
                       integer("kv_heads"), integer("ffn"), integer("seq"),    integer("batch")};
    ParallelFlags parallel;
    parallel.dp = integer("dp").value_or(1);
    parallel.tp = integer("tp").value_or(1);
    parallel.pp = integer("pp").value_or(1);
    parallel.cp = integer("cp").value_or(1);
    parallel.zero = static_cast<int>(integer("zero").value_or(0));
    parallel.dtype = text("dtype", "");
    parallel.attention = text("attention", "");
    const auto flag = [&entry](const char* key) {
      if (entry.contains(key) && !entry[key].is_boolean()) throw std::invalid_argument(key);
      return entry.value(key, false);
    };
    parallel.sequenceParallel = flag("sequence_parallel");
    parallel.asyncTp = flag("async_tp");
    const auto peak = integer("peak_bytes");
    if (!peak || *peak <= 0) {
      return makeError(ErrorKind::BadInput, "peak_bytes must be a byte count above 0");
    }
    auto profile = memory::parseProfile(text("profile", "engine"));
    if (!profile) return profile.error();
    auto config = resolveModel(model);
    if (!config) return config.error();
    auto layout = resolveParallel(parallel, *profile);
    if (!layout) return layout.error();
    auto policy = memory::parseRecompute(text("recompute", "none"));
    if (!policy) return policy.error();
    memory::MeasuredPeak measured{{*config, *layout, *policy, *profile},
                                  static_cast<std::uint64_t>(*peak)};
    // An engine run measured by `trainbench run` ran the tuned runtime and
    // the plain step unless its entry says otherwise, as for `memory`.
    if (*profile == memory::Profile::Engine) {
      auto runtime = applyRuntime(text("runtime", ""), measured.config);
      if (!runtime) return runtime.error();
      measured.config.compiledStep = flag("compile");
    } else if (*profile == memory::Profile::Torchtitan) {
      // A torchtitan job's own switches: torch.compile, float8, its code's date.
      measured.config.compiledStep = flag("compile");
      measured.config.float8 = flag("float8");
      auto version = memory::parseFrameworkVersion(text("framework_version", "current"));
      if (!version) return version.error();
      measured.config.frameworkVersion = *version;
    } else {
      for (const char* key : {"runtime", "compile"}) {
        if (!entry.contains(key)) continue;
        return makeError(ErrorKind::BadInput, std::string("\"") + key +
                                                  "\" describes this engine; the " +
                                                  memory::toString(*profile) + " profile has none");
      }
    }
    return measured;
  } catch (const std::exception& wrongType) {
    return makeError(ErrorKind::BadInput,
                     std::string("\"") + wrongType.what() + "\" has the wrong type");
  }
}

Json fitJson(const memory::Calibration& fit) {
  return Json{{"scale", fit.scale},
              {"offset_bytes", fit.offsetBytes},
              {"points", fit.points},
              {"mean_error_before", fit.meanErrorBefore},
              {"max_error_before", fit.maxErrorBefore},
              {"mean_error_after", fit.meanErrorAfter},
              {"max_error_after", fit.maxErrorAfter}};
}

}  // namespace

/// A run directory as a measurement, read through core/runs; nothing where
/// its peak does not measure what the engine profile predicts: unfinished or
/// failed runs (an out-of-memory run stops at its budget), GPU runs (the
/// profile predicts the CPU float32 step) and runs whose sequence length
/// varied by step.
std::optional<Expected<memory::MeasuredPeak>> measuredRun(const std::filesystem::path& runDir) {
  const Expected<runs::RunConfigRecord> config = runs::readRunConfig(runDir);
  const Expected<runs::RunSummary> summary = runs::readRunSummary(runDir);
  if (!config || !summary) return std::nullopt;
  const bool measured = summary->state == runs::RunState::Completed && summary->peakBytes > 0 &&
                        config->device == "cpu" && runs::trainedOneLength(*config);
  if (!measured) return std::nullopt;
  auto layout = resolveParallel(ParallelFlags{}, memory::Profile::Engine);
  if (!layout) return layout.error();
  auto policy = memory::parseRecompute(summary->recompute.empty() ? "none" : summary->recompute);
  if (!policy) return policy.error();
  memory::MeasuredPeak point{{config->model, *layout, *policy, memory::Profile::Engine},
                             summary->peakBytes};
  // The runtime and step the run trained, as `memory` would be told them.
  auto runtime = applyRuntime(config->runtime, point.config);
  if (!runtime) return runtime.error();
  point.config.compiledStep = config->compile;
  return point;
}

/// Every measured run under `store` (a run store, or one run directory).
Expected<std::vector<memory::MeasuredPeak>> readRunStore(const std::string& store) {
  std::vector<std::filesystem::path> runDirs;
  if (runs::isRunDirectory(store)) {
    runDirs.emplace_back(store);
  } else {
    std::error_code error;
    for (const auto& child : std::filesystem::directory_iterator(store, error)) {
      if (child.is_directory()) runDirs.push_back(child.path());
    }
    if (error) {
      return makeError(ErrorKind::BadInput, "--calibrate: " + store + ": " + error.message());
    }
  }
  std::sort(runDirs.begin(), runDirs.end());  // the store's names are timestamps
  std::vector<memory::MeasuredPeak> points;
  for (const auto& runDir : runDirs) {
    auto point = measuredRun(runDir);
    if (!point) continue;
    if (!*point) {
      return makeError(ErrorKind::BadInput,
                       "--calibrate: " + runDir.string() + ": " + point->error().message);
    }
    points.push_back(**point);
  }
  if (points.empty()) {
    return makeError(
        ErrorKind::BadInput,
        "--calibrate: " + store + ": no completed CPU run with a measured peak (trainbench run)");
  }
  return points;
}

Expected<std::vector<memory::MeasuredPeak>> readMeasurements(const std::string& path) {
  if (std::filesystem::is_directory(path)) return readRunStore(path);
  auto content = readFile(path);
  if (!content) return makeError(ErrorKind::BadInput, "--calibrate: " + content.error().message);
  const Json document = Json::parse(*content, nullptr, false);
  const Json* list = &document;
  if (document.is_object() && document.contains("measurements")) list = &document["measurements"];
  if (document.is_discarded() || !list->is_array() || list->empty()) {
    return makeError(ErrorKind::BadInput, "--calibrate: " + path +
                                              ": expected {\"measurements\": [...]} with at "
                                              "least one measurement");
  }
  std::vector<memory::MeasuredPeak> points;
  for (std::size_t i = 0; i < list->size(); ++i) {
    auto point = readOne((*list)[i]);
    if (!point) return badEntry(path, i, point.error().message);
    points.push_back(*point);
  }
  return points;
}

int runCalibrate(const CommandContext& context, const std::string& path, bool json) {
  auto points = readMeasurements(path);
  if (!points) return context.fail(points.error());
  auto fits = memory::fitCalibrations(*points);
  if (!fits) return context.fail(fits.error());
  const auto target = memory::defaultCalibrationPath();
  auto stored = memory::loadCalibrations(target);
  if (!stored) return context.fail(stored.error());
  for (const auto& [profile, fit] : *fits) (*stored)[profile] = fit;
  if (Status saved = memory::saveCalibrations(*stored, target); !saved) {
    return context.fail(saved.error());
  }
  if (json) {
    Json profiles = Json::object();
    for (const auto& [profile, fit] : *fits) profiles[memory::toString(profile)] = fitJson(fit);
    printJson(context.out(), Json{{"path", target.string()}, {"profiles", profiles}});
    return kExitSuccess;
  }
  TextTable table({"PROFILE", "POINTS", "SCALE", "OFFSET", "ERROR BEFORE", "ERROR AFTER"});
  for (const auto& [profile, fit] : *fits) {
    char scale[32], before[48], after[48];
    std::snprintf(scale, sizeof(scale), "%.4f", fit.scale);
    std::snprintf(before, sizeof(before), "%.1f%% (worst %.1f%%)", 100 * fit.meanErrorBefore,
                  100 * fit.maxErrorBefore);
    std::snprintf(after, sizeof(after), "%.1f%% (worst %.1f%%)", 100 * fit.meanErrorAfter,
                  100 * fit.maxErrorAfter);
    table.addRow({memory::toString(profile), std::to_string(fit.points), scale,
                  std::to_string(fit.offsetBytes) + " B", before, after});
  }
  table.print(context.out());
  context.out() << "stored in " << target.string() << '\n';
  return kExitSuccess;
}

}  // namespace tb::cli
