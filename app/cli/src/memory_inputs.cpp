// The calibration file is optional and per user; a broken one is reported
// (with its path) rather than silently ignored, since it changes every
// prediction of its profile. --no-calibration gives the raw analytic model.
#include "memory_inputs.hpp"

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdlib>

#if TB_HAVE_ENGINE
#include "tb/engine/run_config.hpp"
#include "tb/common/units.hpp"
#endif

namespace tb::cli {

// What the runtime changes in memory: flat gradient buffers and K and V read
// in place. Empty means tuned, what `trainbench run` runs unless told
// otherwise, so that `plan` recommends what `run --recompute auto` then picks.
Expected<std::string> applyRuntime(const std::string& text, memory::PredictionInput& input) {
  const std::string spelled = text.empty() ? "tuned" : text;
#if TB_HAVE_ENGINE
  auto runtime = engine::parseRuntime(spelled);
  if (!runtime) return runtime.error();
  input.flatGradients = runtime->flatGradients;
  input.gqaInPlace = runtime->gqaInPlace;
  return engine::toString(*runtime);
#else
  // A build without the engine has no `run` and no switches to spell; its
  // two runtimes still describe a build that has.
  if (spelled != "tuned" && spelled != "stock") {
    return makeError(ErrorKind::BadInput, "--runtime '" + spelled +
                                              "': expected stock or tuned (this build has no "
                                              "training engine, so no switches)");
  }
  input.flatGradients = input.gqaInPlace = spelled == "tuned";
  return spelled;
#endif
}

void addPredictionFlags(CLI::App& command, PredictionFlags& flags,
                        const std::string& gpuMemoryHelp) {
  addModelFlags(command, flags.model);
  addParallelFlags(command, flags.parallel);
  command
      .add_option("--profile", flags.profile,
                  "engine (this engine, default), megatron, deepspeed, fsdp (the Trainer's "
                  "or accelerate's FSDP) or torchtitan (FSDP2 with TP, PP and CP): peak "
                  "reserved memory of those frameworks")
      ->type_name("NAME");
  command
      .add_option("--compile", flags.compile,
                  "on or off (default): the engine's compiled step (trainbench run "
                  "--compile), whose fused kernels keep less for backward; with "
                  "--profile torchtitan, torch.compile of each block")
      ->type_name("on|off");
  command
      .add_option("--framework-version", flags.frameworkVersion,
                  "The framework's code where its date changes the answer: 2024-12 "
                  "(torchtitan's loss not compiled), 2025-06 or current (default, the same)")
      ->type_name("DATE");
  command.add_flag("--float8", flags.float8,
                   "torchtitan's float8 linears (torchao), which per-op checkpointing "
                   "keeps differently");
  command
      .add_option("--runtime", flags.runtime,
                  "The engine runtime predicted, as trainbench run --runtime takes it: "
                  "tuned (default, as run) or stock, then optional ,-SWITCH or ,+SWITCH; "
                  "engine profile only")
      ->type_name("RUNTIME");
  command.add_option("--gpu-memory", flags.gpuMemory, gpuMemoryHelp)->type_name("GIB");
  command.add_flag("--no-calibration", flags.noCalibration,
                   "Ignore the stored calibration (memory-calibration.json in the config "
                   "directory)");
  command.add_flag("--json", flags.json, "Print one JSON document (fields: docs/CLI.md)");
}

Expected<ResolvedPrediction> resolvePrediction(const PredictionFlags& flags) {
  ResolvedPrediction resolved;
  auto profile = memory::parseProfile(flags.profile);
  if (!profile) return profile.error();
  resolved.input.profile = *profile;
  auto model = resolveModel(flags.model);
  if (!model) return model.error();
  resolved.input.model = *model;
  auto parallel = resolveParallel(flags.parallel, *profile);
  if (!parallel) return parallel.error();
  resolved.input.parallel = *parallel;
  if (flags.compile != "on" && flags.compile != "off") {
    return makeError(ErrorKind::BadInput, "--compile: '" + flags.compile + "' is not on or off");
  }
  resolved.input.compiledStep = flags.compile == "on";
  auto version = memory::parseFrameworkVersion(flags.frameworkVersion);
  if (!version) return version.error();
  resolved.input.frameworkVersion = *version;
  resolved.input.float8 = flags.float8;
  if (*profile == memory::Profile::Engine) {
    auto runtime = applyRuntime(flags.runtime, resolved.input);
    if (!runtime) return runtime.error();
    resolved.runtime = *runtime;
  } else if (!flags.runtime.empty()) {
    return makeError(ErrorKind::BadInput,
                     "--runtime: '" + flags.runtime + "' describes this engine; the " +
                         memory::toString(*profile) + " profile predicts that framework's own");
  }
  if (!flags.noCalibration) {
    auto stored = memory::loadCalibrations(memory::defaultCalibrationPath());
    if (!stored) return stored.error();
    if (const auto found = stored->find(*profile); found != stored->end()) {
      resolved.calibration = found->second;
    }
  }
  return resolved;
}

Expected<std::uint64_t> parseGpuMemory(const std::string& text) {
  char* end = nullptr;
  const double gib = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(gib) || gib <= 0 ||
      gib > 1e6) {
    return makeError(ErrorKind::BadInput,
                     "--gpu-memory: '" + text + "' is not a size in GiB above 0 (for example 80)");
  }
  return static_cast<std::uint64_t>(std::llround(gib * kGiB));
}

}  // namespace tb::cli
