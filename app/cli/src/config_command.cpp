// `trainbench config`: the artifacts that switch the image's optimizations on
// correctly, printed (one artifact raw so it pipes into a file, several with
// headers), written to a folder, or returned as one JSON document. Numbers
// are taken as text and parsed here so that a bad value is named with its
// option and exits 2, like every other command.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <memory>
#include <ostream>

#include "command.hpp"
#include "compat_inputs.hpp"
#include "exit_codes.hpp"
#include "output.hpp"
#include "tb/common/atomic_file.hpp"
#include "tb/common/text.hpp"
#include "tb/config/artifacts.hpp"

namespace tb::cli {
namespace {

struct ConfigOptions {
  std::string image;
  bool compile = false;
  bool checkpointOpt = false;
  std::string gpus = "8";
  std::string nodes = "1";
  std::string zero = "3";
  bool offloadOptimizer = false;
  bool offloadParams = false;
  std::string registry = "public";
  std::string region = "cn-beijing";
  std::string model = "llama3-8b";
  std::string microBatch = "1";
  std::string seq = "4096";
  std::string format = "all";
  std::string outDir;
  bool json = false;
};

Expected<int> parseCount(const std::string& option, const std::string& text) {
  const auto value = parseUnsigned(trim(text));
  if (!value || *value > 1'000'000) {
    return makeError(ErrorKind::BadInput,
                     option + ": '" + text + "' is not a whole number (0 to 1000000)");
  }
  return static_cast<int>(*value);
}

Expected<config::ImageConfig> buildConfig(const ConfigOptions& options,
                                          const catalog::Release& release) {
  config::ImageConfig result;
  result.tag = release.tag;
  result.compilerOptimization = options.compile;
  result.checkpointOptimization = options.checkpointOpt;
  result.deepspeed.offloadOptimizer = options.offloadOptimizer;
  result.deepspeed.offloadParameters = options.offloadParams;
  result.model = options.model;
  result.region = options.region;
  if (options.registry == "vpc") {
    result.registry = config::RegistryKind::Vpc;
  } else if (options.registry != "public") {
    return makeError(ErrorKind::BadInput,
                     "--registry: '" + options.registry + "' is not public or vpc");
  }
  const std::pair<const char*, const std::string*> numbers[] = {
      {"--gpus", &options.gpus},
      {"--nodes", &options.nodes},
      {"--zero", &options.zero},
      {"--micro-batch", &options.microBatch},
      {"--seq", &options.seq}};
  int* targets[] = {&result.gpusPerPod, &result.nodes, &result.deepspeed.zeroStage,
                    &result.microBatch, &result.seqLength};
  for (std::size_t i = 0; i < std::size(numbers); ++i) {
    auto value = parseCount(numbers[i].first, *numbers[i].second);
    if (!value) return value.error();
    *targets[i] = *value;
  }
  return result;
}

// The core names a bad field as it is called in ImageConfig ("gpus: '3' ...");
// on the command line the same field is an option, so say "--gpus".
Error asOptionError(Error error) {
  for (const char* field :
       {"gpus:", "nodes:", "zero:", "micro-batch:", "seq:", "region:", "compile:", "model:"}) {
    if (error.message.starts_with(field)) {
      error.message = "--" + error.message;
      break;
    }
  }
  return error;
}

Json configToJson(const config::ResolvedConfig& resolved) {
  const config::ImageConfig& c = resolved.config;
  return Json{{"gpus_per_pod", c.gpusPerPod},
              {"nodes", c.nodes},
              {"compiler_optimization", c.compilerOptimization},
              {"checkpoint_optimization", c.checkpointOptimization},
              {"gradient_checkpointing", c.gradientCheckpointing},
              {"bf16", c.bf16},
              {"zero_stage", c.deepspeed.zeroStage},
              {"offload_optimizer", c.deepspeed.offloadOptimizer},
              {"offload_parameters", c.deepspeed.offloadParameters},
              {"model", c.model},
              {"micro_batch", c.microBatch},
              {"seq", c.seqLength}};
}

Expected<std::vector<std::string>> writeArtifacts(const std::string& dir,
                                                  const std::vector<config::Artifact>& artifacts) {
  std::vector<std::string> written;
  for (const config::Artifact& artifact : artifacts) {
    const std::filesystem::path path = std::filesystem::path(dir) / artifact.fileName;
    if (auto status = writeFileAtomically(path, artifact.content); !status) {
      return makeError(status.error().kind, "--out: " + status.error().message);
    }
    if (path.extension() == ".sh") {
      std::error_code ignored;  // a script that is not executable is still usable with sh
      std::filesystem::permissions(path, std::filesystem::perms::owner_exec,
                                   std::filesystem::perm_options::add, ignored);
    }
    written.push_back(path.string());
  }
  return written;
}

void printText(std::ostream& out, const std::vector<config::Artifact>& artifacts,
               const std::vector<std::string>& written) {
  if (!written.empty()) {
    for (const std::string& path : written) out << "wrote " << path << '\n';
    return;
  }
  if (artifacts.size() == 1) {
    out << artifacts.front().content;
    return;
  }
  for (std::size_t i = 0; i < artifacts.size(); ++i) {
    if (i > 0) out << '\n';
    out << "==> " << artifacts[i].fileName << " (" << config::toString(artifacts[i].kind)
        << ") <==\n"
        << artifacts[i].content;
  }
}

int runConfig(const CommandContext& context, const ConfigOptions& options) {
  auto catalog = context.loadCatalog();
  if (!catalog) return context.fail(catalog.error());
  auto release = resolveImage(*catalog, options.image);
  if (!release) return context.fail(release.error());
  std::vector<config::ArtifactKind> kinds = config::allArtifactKinds();
  if (options.format != "all") {
    auto kind = config::parseArtifactKind(options.format);
    if (!kind) return context.fail(makeError(ErrorKind::BadInput, "--" + kind.error().message));
    kinds = {*kind};
  }
  auto imageConfig = buildConfig(options, **release);
  if (!imageConfig) return context.fail(imageConfig.error());
  auto resolved = config::resolveConfig(*imageConfig, *catalog);
  if (!resolved) return context.fail(asOptionError(resolved.error()));

  std::vector<config::Artifact> artifacts;
  for (config::ArtifactKind kind : kinds) {
    artifacts.push_back(config::generateArtifact(*resolved, kind));
  }
  std::vector<std::string> written;
  if (!options.outDir.empty()) {
    auto paths = writeArtifacts(options.outDir, artifacts);
    if (!paths) return context.fail(paths.error());
    written = std::move(*paths);
  }
  if (!options.json) {
    printText(context.out(), artifacts, written);
    return kExitSuccess;
  }
  Json list = Json::array();
  for (std::size_t i = 0; i < artifacts.size(); ++i) {
    list.push_back({{"kind", config::toString(artifacts[i].kind)},
                    {"file_name", artifacts[i].fileName},
                    {"path", written.empty() ? Json(nullptr) : Json(written[i])},
                    {"content", artifacts[i].content}});
  }
  printJson(context.out(), Json{{"release", resolved->release.tag},
                                {"image", resolved->imageReference},
                                {"registry", config::toString(resolved->config.registry)},
                                {"nccl_socket_ifname", resolved->socketInterface},
                                {"config", configToJson(*resolved)},
                                {"artifacts", list}});
  return kExitSuccess;
}

}  // namespace

RegisteredCommand registerConfigCommand(CLI::App& app) {
  auto options = std::make_shared<ConfigOptions>();
  CLI::App* command =
      app.add_subcommand("config",
                         "Generate the env file, docker run, Kubernetes manifest, DeepSpeed JSON, "
                         "TrainingArguments, launch commands and an sbatch script for a "
                         "training-nv-pytorch release");
  command->add_option("--image", options->image, "Release: a tag (25.04) or an image reference")
      ->type_name("TAG")
      ->required();
  command->add_flag("--compile", options->compile,
                    "Compiler optimization: torch_compile=True with bf16 and gradient "
                    "checkpointing");
  command->add_flag("--checkpoint-opt", options->checkpointOpt,
                    "Checkpoint optimization: CHECKPOINT_OPTIMIZATION=true");
  command->add_option("--gpus", options->gpus, "GPUs per pod: 1, 2, 4, 8 or 16 (default 8)")
      ->type_name("N");
  command
      ->add_option("--nodes", options->nodes,
                   "Pods (machines); more than 1 gives an "
                   "indexed Job (default 1)")
      ->type_name("N");
  command->add_option("--zero", options->zero, "DeepSpeed ZeRO stage 0..3 (default 3)")
      ->type_name("STAGE");
  command->add_flag("--offload-optimizer", options->offloadOptimizer,
                    "ZeRO: optimizer state in host memory");
  command->add_flag("--offload-params", options->offloadParams,
                    "ZeRO-3: parameters in host memory");
  command->add_option("--registry", options->registry, "public or vpc (default public)")
      ->type_name("KIND");
  command->add_option("--region", options->region, "VPC mirror region (default cn-beijing)")
      ->type_name("REGION");
  command
      ->add_option("--model", options->model,
                   "Model of the engine's commands (benchmark, data-parallel run)")
      ->type_name("NAME");
  command->add_option("--micro-batch", options->microBatch, "Sequences per GPU per step")
      ->type_name("N");
  command->add_option("--seq", options->seq, "Sequence length (default 4096)")->type_name("N");
  command
      ->add_option("--format", options->format,
                   "env, docker, k8s, deepspeed, training-args, launch, slurm or all (default)")
      ->type_name("FORMAT");
  command->add_option("--out", options->outDir, "Write the artifacts into this folder")
      ->type_name("DIR");
  command->add_flag("--json", options->json, "Print one JSON document (fields: docs/CLI.md)");
  takeLastOfRepeatedValues(*command);
  command->footer(
      "NCCL_SOCKET_IFNAME follows the pod size: eth0 for 1, 2, 4 or 8 GPUs, hpn0 for 16.\n"
      "Check what you have with: trainbench validate FILE...\n"
      "Exit codes: 0 generated, 2 bad input, 1 a file could not be written.");
  return {command,
          [options](const CommandContext& context) { return runConfig(context, *options); }};
}

}  // namespace tb::cli
