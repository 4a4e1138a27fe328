// `trainbench registry tags|inspect`: what a registry really publishes, read
// through the OCI distribution API without pulling a layer. Errors name the
// host, the HTTP status and the registry's error code; a network failure
// exits 1, a bad reference or a tag that does not exist exits 2.
#include <CLI/CLI.hpp>

#include <memory>

#include "command.hpp"
#include "exit_codes.hpp"
#include "registry_output.hpp"
#include "registry_session.hpp"

namespace tb::cli {
namespace {

struct RegistryCommandOptions {
  std::string image;
  bool json = false;
  RegistryOptions registry;
};

int runTags(const CommandContext& context, const RegistryCommandOptions& options) {
  auto repository = registry::parseImageReference(options.image, registry::TagPolicy::Forbidden);
  if (!repository) return context.fail(repository.error());
  auto client = makeRegistryClient(repository->registry, options.registry, context.err());
  if (!client) return context.fail(client.error());
  auto tags = (*client)->listTags(repository->repository);
  if (!tags) return context.fail(tags.error());
  if (options.json) {
    printJson(context.out(), tagsToJson(*repository, *tags));
  } else {
    printTags(context.out(), *repository, *tags);
  }
  return kExitSuccess;
}

int runInspect(const CommandContext& context, const RegistryCommandOptions& options) {
  auto reference = registry::parseImageReference(options.image, registry::TagPolicy::Required);
  if (!reference) return context.fail(reference.error());
  auto client = makeRegistryClient(reference->registry, options.registry, context.err());
  if (!client) return context.fail(client.error());
  auto inspection =
      registry::inspectImage(**client, reference->repository, reference->manifestReference());
  if (!inspection) return context.fail(inspection.error());
  if (options.json) {
    printJson(context.out(), inspectionToJson(*reference, *inspection));
  } else {
    printInspection(context.out(), *inspection);
  }
  return kExitSuccess;
}

CLI::App* addAction(CLI::App& parent, const char* name, const char* help, const char* imageHelp,
                    RegistryCommandOptions& options) {
  CLI::App* command = parent.add_subcommand(name, help);
  command->add_option("IMAGE", options.image, imageHelp)->required()->type_name("IMAGE");
  command->add_flag("--json", options.json, "Print one JSON document (fields: docs/CLI.md)");
  addRegistryOptions(*command, options.registry);
  return command;
}

}  // namespace

RegisteredCommand registerRegistryCommand(CLI::App& app) {
  auto tagsOptions = std::make_shared<RegistryCommandOptions>();
  auto inspectOptions = std::make_shared<RegistryCommandOptions>();
  CLI::App* command = app.add_subcommand(
      "registry", "Ask an OCI / Docker registry which tags, platforms and CUDA it really has");
  command->require_subcommand(1);
  CLI::App* tags = addAction(*command, "tags", "List a repository's tags, sorted",
                             "Repository: REGISTRY/NAME (no tag)", *tagsOptions);
  CLI::App* inspect =
      addAction(*command, "inspect",
                "Show a tag's digest, platforms and, per platform, the CUDA and driver it declares",
                "Image: REGISTRY/NAME:TAG or REGISTRY/NAME@sha256:...", *inspectOptions);
  command->footer(
      "Credentials (optional) come from TRAINBENCH_REGISTRY_USERNAME and\n"
      "TRAINBENCH_REGISTRY_PASSWORD; proxies from http_proxy, https_proxy, no_proxy.\n"
      "Exit codes: 0 done, 1 network or registry failure, 2 bad reference or unknown tag.");
  return {
      command, [tags, inspect, tagsOptions, inspectOptions](const CommandContext& context) {
        if (tags->parsed()) return runTags(context, *tagsOptions);
        if (inspect->parsed()) return runInspect(context, *inspectOptions);
        return context.fail(makeError(ErrorKind::BadInput, "registry: give 'tags' or 'inspect'"));
      }};
}

}  // namespace tb::cli
