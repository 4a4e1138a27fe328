// The plan is built from the same pieces as `trainbench config`'s files: each
// configuration is an ImageConfig resolved against the catalog (so its
// environment is imageEnvironment's), the engine's flags per configuration
// are tb::bench's, and the job files are tb::config's cluster jobs.
#include "ablation_plan.hpp"

#include <filesystem>

#include "compat_inputs.hpp"
#include "tb/memory/memory_options.hpp"
#include "tb/common/atomic_file.hpp"
#include "tb/common/build_info.hpp"
#include "tb/common/utc_time.hpp"

namespace tb::cli {
namespace {

using bench::AblationStep;
using bench::Scheduler;
using config::ContainerRuntime;

Error badInput(const std::string& message) { return makeError(ErrorKind::BadInput, message); }

ContainerRuntime containerOf(const AblationPlanRequest& request) {
  if (request.container) return *request.container;
  // NVIDIA's clusters run NGC images under Slurm through pyxis; torchrun
  // alone runs in whatever environment it is started from.
  return request.scheduler == Scheduler::Slurm ? ContainerRuntime::Pyxis : ContainerRuntime::None;
}

Status checkContainer(const AblationPlanRequest& request) {
  if (!request.container) return {};
  const std::string given(config::toString(*request.container));
  if (request.scheduler == Scheduler::Kubernetes) {
    return badInput("--container: '" + given +
                    "': Kubernetes runs every pod in its image; --container is for slurm and "
                    "torchrun");
  }
  if (request.scheduler == Scheduler::Torchrun && *request.container == ContainerRuntime::Pyxis) {
    return badInput(
        "--container: 'pyxis' runs images through Slurm's srun; with --scheduler "
        "torchrun use apptainer or none");
  }
  return {};
}

Status checkCounts(const AblationPlanRequest& request) {
  if (request.repeats < 1 || request.repeats > 1000) {
    return badInput("--repeats: '" + std::to_string(request.repeats) +
                    "' is not a count of repeats (1 to 1000)");
  }
  if (request.nodes < 1 || request.nodes > 100000) {
    return badInput("--nodes: '" + std::to_string(request.nodes) +
                    "' is not a count of nodes (1 to 100000)");
  }
  if (request.timeLimitMinutes < 0) {
    return badInput("--time-limit: '" + std::to_string(request.timeLimitMinutes) +
                    "' is not a number of minutes (0 for the cluster's default)");
  }
  return {};
}

// +CkptOpt's policy for a user's command, spelled as its framework takes it
// (Megatron's flags, torchtitan's TOML, TrainingArguments); empty when none
// was given, an error naming the option when the framework cannot spell it.
Expected<std::string> ckptSpelling(const AblationPlanRequest& request) {
  if (request.ckptRecompute.empty() && request.profile.empty()) return std::string();
  if (request.command.empty()) {
    return badInput(std::string(request.ckptRecompute.empty() ? "--profile" : "--ckpt-recompute") +
                    ": for a command after --; the engine's +CkptOpt plans its own "
                    "(--recompute auto)");
  }
  if (request.ckptRecompute.empty() || request.profile.empty()) {
    return badInput(std::string(request.profile.empty() ? "--profile" : "--ckpt-recompute") +
                    ": --ckpt-recompute and --profile go together (the policy, and the "
                    "framework that spells it)");
  }
  Expected<memory::Profile> profile = memory::parseProfile(request.profile);
  if (!profile) return badInput("--profile: " + profile.error().message);
  Expected<memory::RecomputePolicy> policy = memory::parseRecompute(request.ckptRecompute);
  if (!policy) return badInput("--ckpt-recompute: " + policy.error().message);
  std::string spelling = memory::frameworkSpelling(*profile, *policy);
  if (spelling.empty()) {
    return badInput("--ckpt-recompute: '" + request.ckptRecompute + "' has no spelling in " +
                    memory::toString(*profile) + " (trainbench plan --profile " +
                    memory::toString(*profile) + " proposes what it can run)");
  }
  return spelling;
}

// The spelling of a request checkWorkload has passed.
std::string checkedSpelling(const AblationPlanRequest& request) {
  Expected<std::string> spelling = ckptSpelling(request);
  return spelling ? *spelling : std::string();
}

Status checkWorkload(const AblationPlanRequest& request) {
  if (Expected<std::string> spelling = ckptSpelling(request); !spelling) return spelling.error();
  if (!request.command.empty()) return {};
  if (request.device != "cpu" && request.device != "cuda") {
    return badInput("--device: '" + request.device + "' is not cpu or cuda");
  }
  if (request.steps && *request.steps < 1) {
    return badInput("--steps: '" + std::to_string(*request.steps) + "' is not at least 1");
  }
  Expected<model::ModelConfig> model = resolveModel(request.modelFlags);
  if (!model) return std::move(model).error();
  return {};
}

// Base is the NGC PyTorch image the release is built on: the catalog's
// pairing, or the user's; never a guess.
Expected<std::string> baseImageFor(const AblationPlanRequest& request,
                                   const catalog::Release& release) {
  if (!request.baseImage.empty()) return request.baseImage;
  if (std::optional<std::string> reference = release.baseImageReference()) return *reference;
  const std::string said = release.baseImage.empty() ? "its notes name no base image"
                                                     : "its notes name '" + release.baseImage + "'";
  return badInput("--base-image: release " + release.tag +
                  " has no NGC PyTorch base image in "
                  "the catalog (" +
                  said + "); give --base-image REF, the image Base runs on");
}

// The core names a bad field as ImageConfig calls it ("gpus: '3' ..."); here
// it is an option.
Error asPlanOptionError(Error error) {
  for (const char* field : {"gpus:", "nodes:", "model:"}) {
    if (error.message.starts_with(field)) {
      error.message = "--" + error.message;
      break;
    }
  }
  return error;
}

config::ImageConfig imageConfigFor(const AblationPlanRequest& request,
                                   const catalog::Release& release, AblationStep step) {
  config::ImageConfig image;
  image.tag = release.tag;
  image.gpusPerPod = request.gpus;
  image.nodes = request.nodes;
  image.compilerOptimization = step == AblationStep::CompilerOpt || step == AblationStep::CkptOpt;
  image.checkpointOptimization = step == AblationStep::CkptOpt;
  if (request.command.empty()) image.model = request.modelFlags.model;
  image.jobName = "tb-" + bench::labelSlug(step);
  return image;
}

// What a user's own command reads to switch itself (its script passes
// TB_COMPILER_OPTIMIZATION to torch_compile, for one); the engine takes its
// flags instead and ignores them.
std::vector<config::EnvVar> ablationEnvironment(const AblationPlanRequest& request,
                                                const config::ImageConfig& image,
                                                AblationStep step) {
  std::vector<config::EnvVar> environment = {
      {"TB_ABLATION_LABEL", std::string(bench::label(step))},
      {"TB_COMPILER_OPTIMIZATION", image.compilerOptimization ? "true" : "false"},
      {"TB_CHECKPOINT_OPTIMIZATION", image.checkpointOptimization ? "true" : "false"}};
  if (step == AblationStep::CkptOpt && !request.ckptRecompute.empty()) {
    environment.push_back({"TB_RECOMPUTE", request.ckptRecompute});
    environment.push_back({"TB_RECOMPUTE_SPELLING", checkedSpelling(request)});
  }
  return environment;
}

// The policy as the workload spells it: the engine's flag, or what the image
// does with CHECKPOINT_OPTIMIZATION for a user's command.
std::string recomputeOf(const AblationPlanRequest& request, AblationStep step) {
  if (step != AblationStep::CkptOpt) return "full";
  if (request.command.empty()) return "auto";
  if (!request.ckptRecompute.empty()) return checkedSpelling(request);
  return "image: CHECKPOINT_OPTIMIZATION=true";
}

// One configuration: its record and the resolved config its jobs are written from.
struct Variant {
  bench::PlanConfiguration record;
  config::ResolvedConfig resolved;
  std::vector<config::EnvVar> extraEnvironment;
};

Expected<Variant> resolveVariant(const AblationPlanRequest& request,
                                 const catalog::Catalog& catalog, const catalog::Release& release,
                                 const std::string& baseImage, AblationStep step) {
  const config::ImageConfig image = imageConfigFor(request, release, step);
  Expected<config::ResolvedConfig> resolved = config::resolveConfig(image, catalog);
  if (!resolved) return asPlanOptionError(std::move(resolved).error());
  Variant variant{.record = {},
                  .resolved = std::move(*resolved),
                  .extraEnvironment = ablationEnvironment(request, image, step)};
  bench::PlanConfiguration& record = variant.record;
  record.step = step;
  record.image = step == AblationStep::Base ? baseImage : variant.resolved.imageReference;
  for (const config::EnvVar& var : config::imageEnvironment(variant.resolved)) {
    record.environment.push_back({var.name, var.value});
  }
  for (const config::EnvVar& var : variant.extraEnvironment) {
    record.environment.push_back({var.name, var.value});
  }
  record.compilerOptimization = image.compilerOptimization;
  record.checkpointOptimization = image.checkpointOptimization;
  record.recompute = recomputeOf(request, step);
  if (request.command.empty()) record.runFlags = bench::engineRunFlags(step);
  return variant;
}

config::VariableStyle styleOf(Scheduler scheduler) {
  return scheduler == Scheduler::Kubernetes ? config::VariableStyle::Kubernetes
                                            : config::VariableStyle::Shell;
}

// `trainbench run` with this configuration's flags, under torchrun's agent or
// as its own launcher (one per node, as `trainbench config` writes it).
std::vector<std::string> engineJobCommand(const AblationPlanRequest& request,
                                          const Variant& variant, const bench::PlanJob& job) {
  const config::VariableStyle style = styleOf(request.scheduler);
  std::vector<std::string> words;
  if (request.scheduler == Scheduler::Torchrun) {
    words = config::torchrunLauncherArguments(variant.resolved, style);
    words.emplace_back("--no_python");
  }
  words.insert(words.end(), {"trainbench", "run"});
  const std::vector<std::string> model = modelArguments(request.modelFlags);
  words.insert(words.end(), model.begin(), model.end());
  if (request.steps) words.insert(words.end(), {"--steps", std::to_string(*request.steps)});
  words.insert(words.end(), {"--device", request.device});
  if (request.memoryBudget) {
    words.insert(words.end(), {"--memory-budget", std::to_string(*request.memoryBudget)});
  }
  words.insert(words.end(), variant.record.runFlags.begin(), variant.record.runFlags.end());
  words.insert(words.end(), {"--run-dir", job.runDir});
  if (request.scheduler != Scheduler::Torchrun) {
    const std::vector<std::string> launcher =
        config::trainbenchLauncherArguments(variant.resolved, style);
    words.insert(words.end(), launcher.begin(), launcher.end());
  }
  return words;
}

PlanFile jobFileFor(const AblationPlanRequest& request, const Variant& variant,
                    const bench::PlanJob& job) {
  const bool engine = request.command.empty();
  const config::ClusterJob cluster{
      .resolved = variant.resolved,
      .imageReference = variant.record.image,
      .environment = variant.extraEnvironment,
      .command = engine ? engineJobCommand(request, variant, job) : request.command,
      .name = job.name,
      .logDir = job.logDir,
      .container = containerOf(request),
      .requestGpus = !engine || request.device == "cuda",
      .timeLimitMinutes = request.timeLimitMinutes,
  };
  switch (request.scheduler) {
    case Scheduler::Slurm:
      return {job.jobFile, config::slurmJobArtifact(cluster, job.jobFile).content, false};
    case Scheduler::Kubernetes:
      return {job.jobFile, config::kubernetesJobArtifact(cluster, job.jobFile).content, false};
    case Scheduler::Torchrun: break;
  }
  return {job.jobFile, config::torchrunJobArtifact(cluster, job.jobFile).content, true};
}

std::string_view jobExtension(Scheduler scheduler) {
  switch (scheduler) {
    case Scheduler::Slurm: return ".sbatch";
    case Scheduler::Kubernetes: return ".yaml";
    case Scheduler::Torchrun: break;
  }
  return ".sh";
}

bench::ClusterPlan planHeader(const AblationPlanRequest& request, const catalog::Release& release) {
  bench::ClusterPlan plan;
  plan.appVersion = std::string(projectVersion());
  plan.createdAt = utcNow(kIsoUtc);
  plan.release = release.tag;
  plan.scheduler = request.scheduler;
  plan.container = request.scheduler == Scheduler::Kubernetes
                       ? "image"
                       : std::string(config::toString(containerOf(request)));
  plan.nodes = request.nodes;
  plan.gpusPerNode = request.gpus;
  plan.repeats = request.repeats;
  plan.workload.engine = request.command.empty();
  plan.workload.model = plan.workload.engine ? request.modelFlags.model : "";
  plan.workload.device = request.device;
  plan.workload.command = request.command;
  return plan;
}

Status checkRequest(const AblationPlanRequest& request) {
  if (Status counts = checkCounts(request); !counts) return counts;
  if (Status container = checkContainer(request); !container) return container;
  return checkWorkload(request);
}

}  // namespace

Expected<BuiltPlan> buildAblationPlan(const AblationPlanRequest& request,
                                      const catalog::Catalog& catalog) {
  if (Status valid = checkRequest(request); !valid) return valid.error();
  Expected<const catalog::Release*> release = resolveImage(catalog, request.image);
  if (!release) return std::move(release).error();
  Expected<std::string> baseImage = baseImageFor(request, **release);
  if (!baseImage) return std::move(baseImage).error();
  BuiltPlan built{.plan = planHeader(request, **release), .files = {}};
  std::vector<Variant> variants;
  for (const AblationStep step : bench::kAblationSteps) {
    Expected<Variant> variant = resolveVariant(request, catalog, **release, *baseImage, step);
    if (!variant) return std::move(variant).error();
    built.plan.configurations.push_back(variant->record);
    variants.push_back(std::move(*variant));
  }
  built.plan.jobs =
      bench::planJobs(request.repeats, jobExtension(request.scheduler), built.plan.workload.engine);
  for (const bench::PlanJob& job : built.plan.jobs) {
    built.files.push_back(
        jobFileFor(request, variants[static_cast<std::size_t>(bench::chainIndex(job.step))], job));
  }
  built.files.push_back({built.plan.submitScript, submitScript(built.plan), true});
  built.files.push_back(
      {std::string(bench::kClusterPlanFile), bench::clusterPlanToJson(built.plan), false});
  return built;
}

Status writeAblationPlan(const std::filesystem::path& out, const BuiltPlan& built) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (fs::exists(out / bench::kClusterPlanFile, error)) {
    return badInput("--out: '" + out.string() + "' already holds a plan (" +
                    std::string(bench::kClusterPlanFile) + "); give another folder");
  }
  // Slurm opens --output files without creating their folders.
  for (const bench::PlanJob& job : built.plan.jobs) {
    fs::create_directories(out / job.logDir, error);
    if (error) {
      return makeError(
          writeFailureKind(error.value()),
          "--out: cannot create '" + (out / job.logDir).string() + "': " + error.message());
    }
  }
  for (const PlanFile& file : built.files) {
    const fs::path path = out / file.path;
    fs::create_directories(path.parent_path(), error);
    Status written = writeFileAtomically(path, file.content);
    if (!written) return makeError(written.error().kind, "--out: " + written.error().message);
    if (file.executable) {
      fs::permissions(path, fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add,
                      error);
    }
  }
  return {};
}

}  // namespace tb::cli
