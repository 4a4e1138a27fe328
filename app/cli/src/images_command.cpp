// `trainbench images`: the releases the catalog knows, as a table for people
// or the full catalog data as JSON for scripts.
#include <CLI/CLI.hpp>

#include <memory>
#include <ostream>

#include "catalog_json.hpp"
#include "command.hpp"
#include "exit_codes.hpp"
#include "output.hpp"
#include "tb/common/text.hpp"

namespace tb::cli {
namespace {

struct ImagesOptions {
  bool json = false;
};

std::string architecturesText(const catalog::Release& release) {
  std::vector<std::string> names;
  for (const catalog::CpuArch arch : release.architectures) {
    names.emplace_back(catalog::toString(arch));
  }
  return joinList(names, ",");
}

void printImagesTable(std::ostream& out, const catalog::Catalog& catalog) {
  TextTable table({"TAG", "CUDA", "DRIVER", "ARCH", "TORCH", "BASE"});
  for (const auto& release : catalog.releases) {
    table.addRow({release.tag, release.cudaVersion,
                  ">= " + std::to_string(release.requiredDriverMajor), architecturesText(release),
                  release.componentVersion("torch").value_or("-"), release.baseImage});
  }
  table.print(out);
  out << '\n'
      << catalog.releases.size() << " releases, catalog " << catalog.catalogVersion << " ("
      << joinList(catalog.sources) << ").\n"
      << "Details: trainbench images --json; check a host: trainbench compat --image TAG\n";
}

int runImages(const CommandContext& context, const ImagesOptions& options) {
  auto catalog = context.loadCatalog();
  if (!catalog) return context.fail(catalog.error());
  if (options.json) {
    printJson(context.out(), catalogToJson(*catalog));
  } else {
    printImagesTable(context.out(), *catalog);
  }
  return kExitSuccess;
}

}  // namespace

RegisteredCommand registerImagesCommand(CLI::App& app) {
  auto options = std::make_shared<ImagesOptions>();
  CLI::App* command = app.add_subcommand(
      "images",
      "List the training-nv-pytorch releases in the catalog (CUDA, required driver, "
      "CPU architectures, components)");
  command->add_flag("--json", options->json,
                    "Print the catalog as one JSON document (fields: docs/CLI.md)");
  command->footer(
      "Exit codes: 0 listed, 2 a --catalog file cannot be used.\n"
      "Global options such as --catalog FILE: trainbench --help. Fields: docs/CLI.md.");
  return {command,
          [options](const CommandContext& context) { return runImages(context, *options); }};
}

}  // namespace tb::cli
