// `trainbench compat`: one release judged for a host (--image), or the report
// for every release (--all). Options are kept as text and validated by
// compat_inputs.cpp so that every bad value gets a message in the house
// format ("--driver: driver version '57x' is not ...") and exit code 2.
#include <CLI/CLI.hpp>

#include <memory>

#include "command.hpp"
#include "compat_json.hpp"
#include "compat_text.hpp"
#include "exit_codes.hpp"
#include "registry_compat.hpp"

namespace tb::cli {
namespace {

struct CompatOptions {
  std::string image;
  bool all = false;
  bool json = false;
  std::string driver;
  std::string gpu;
  std::string gpuCount;
  std::string arch;
  bool fromRegistry = false;  // judge what the image itself declares
  RegistryOptions registry;
  // Whether each option was given, kept by CLI11 after parsing.
  const CLI::Option* imageOption = nullptr;
  const CLI::Option* driverOption = nullptr;
  const CLI::Option* gpuOption = nullptr;
  const CLI::Option* gpuCountOption = nullptr;
  const CLI::Option* archOption = nullptr;
};

std::optional<std::string> given(const CLI::Option* option, const std::string& value) {
  return option->count() > 0 ? std::optional<std::string>(value) : std::nullopt;
}

HostOptions hostOptions(const CompatOptions& options) {
  return {given(options.driverOption, options.driver), given(options.gpuOption, options.gpu),
          given(options.gpuCountOption, options.gpuCount), given(options.archOption, options.arch)};
}

int runSingle(const CommandContext& context, const CompatOptions& options,
              const catalog::Release& release, const catalog::Catalog& catalog,
              const JudgedHost& host) {
  const ReleaseVerdict result = judgeRelease(release, catalog, host);
  if (options.json) {
    printJson(context.out(), verdictToJson(result, host));
  } else {
    printVerdict(context.out(), result, host);
  }
  return result.verdict.status == compat::VerdictStatus::Unsupported ? kExitCheckFailed
                                                                     : kExitSuccess;
}

int runReport(const CommandContext& context, const CompatOptions& options,
              const catalog::Catalog& catalog, const JudgedHost& host) {
  std::vector<ReleaseVerdict> results;
  results.reserve(catalog.releases.size());
  for (const auto& release : catalog.releases) {
    results.push_back(judgeRelease(release, catalog, host));
  }
  if (options.json) {
    printJson(context.out(), reportToJson(results, host));
  } else {
    printReport(context.out(), catalog, results, host);
  }
  return kExitSuccess;
}

int runCompat(const CommandContext& context, const CompatOptions& options) {
  if (options.imageOption->count() == 0 && !options.all) {
    return context.fail(
        makeError(ErrorKind::BadInput,
                  "compat: give --image TAG to judge one release, or --all for every release"));
  }
  auto catalog = context.loadCatalog();
  if (!catalog) return context.fail(catalog.error());
  // The image is checked before the host is detected: a typo in the tag
  // should not wait for nvidia-smi.
  const catalog::Release* release = nullptr;
  if (!options.all) {
    auto resolved = resolveImage(*catalog, options.image);
    if (!resolved) return context.fail(resolved.error());
    release = *resolved;
  }
  auto host = resolveHost(hostOptions(options));
  if (!host) return context.fail(host.error());
  if (options.fromRegistry) {
    auto declared = releaseFromRegistry(*release, options.image, host->query.arch, options.registry,
                                        context.err());
    if (!declared) return context.fail(declared.error());
    host->notes.insert(host->notes.end(), declared->notes.begin(), declared->notes.end());
    return runSingle(context, options, declared->release, *catalog, *host);
  }
  return release == nullptr ? runReport(context, options, *catalog, *host)
                            : runSingle(context, options, *release, *catalog, *host);
}

}  // namespace

RegisteredCommand registerCompatCommand(CLI::App& app) {
  auto options = std::make_shared<CompatOptions>();
  CLI::App* command = app.add_subcommand(
      "compat", "Will a training-nv-pytorch release run on this host (or the host you describe)?");
  CLI::Option* image =
      command
          ->add_option("--image", options->image,
                       "Release to judge: a tag (25.04) or an image reference ending in "
                       ":25.04 or :25.04-serverless")
          ->type_name("TAG");
  options->imageOption = image;
  command->add_flag("--all", options->all, "Judge every release in the catalog (a report)")
      ->excludes(image);
  options->driverOption =
      command->add_option("--driver", options->driver, "NVIDIA driver version (570.124.06)")
          ->type_name("VER");
  options->gpuOption =
      command->add_option("--gpu", options->gpu, "GPU name as nvidia-smi prints it")
          ->type_name("NAME");
  options->gpuCountOption =
      command->add_option("--gpu-count", options->gpuCount, "Number of GPUs (at least 1)")
          ->type_name("N");
  options->archOption =
      command->add_option("--arch", options->arch, "CPU architecture: amd64 or arm64")
          ->type_name("ARCH");
  command->add_flag("--json", options->json, "Print one JSON document (fields: docs/CLI.md)");
  command
      ->add_flag("--from-registry", options->fromRegistry,
                 "Read the platforms, CUDA and driver the image declares from its registry "
                 "(--image REGISTRY/NAME:TAG)")
      ->needs(image);
  addRegistryOptions(*command, options->registry);
  takeLastOfRepeatedValues(*command);
  command->footer(
      "Values not given are detected on this host (NVML, then nvidia-smi, then\n"
      "/proc/driver/nvidia/version); the GPU count is detected only with the GPU name.\n"
      "Exit codes: --image: 0 supported or forward-compatible, 3 unsupported;\n"
      "--all (a report): 0 whatever the verdicts; both: 2 bad input, 1 failure.\n"
      "Global options such as --catalog FILE: trainbench --help. Fields: docs/CLI.md.");
  return {command,
          [options](const CommandContext& context) { return runCompat(context, *options); }};
}

}  // namespace tb::cli
