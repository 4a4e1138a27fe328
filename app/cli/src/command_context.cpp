// Loading the catalog is shared by every command that reads releases, so the
// --catalog handling (merge order, error wording) is defined once here, as is
// the repeated-option policy the commands share.
#include <ostream>

#include <CLI/CLI.hpp>

#include "command.hpp"
#include "exit_codes.hpp"
#include "tb/catalog/catalog_loader.hpp"

namespace tb::cli {

Expected<catalog::Catalog> CommandContext::loadCatalog() const {
  catalog::Catalog merged = catalog::builtinCatalog();
  for (const std::string& file : globals_.catalogFiles) {
    auto extra = catalog::loadCatalogFile(file);
    // A file the user named that cannot be used is bad input, whatever the
    // loader's reason (missing, unreadable, malformed).
    if (!extra) return makeError(ErrorKind::BadInput, "--catalog: " + extra.error().message);
    merged = catalog::mergeCatalogs(merged, *extra);
  }
  return merged;
}

Expected<std::filesystem::path> thisProgram() {
  std::error_code error;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) {
    return makeError(ErrorKind::Runtime,
                     "cannot find this program's path in /proc/self/exe: " + error.message());
  }
  return self;
}

int CommandContext::fail(const Error& error) const {
  err_ << "trainbench: " << error.message << '\n';
  return exitCodeFor(error.kind);
}

void takeLastOfRepeatedValues(CLI::App& command) {
  for (CLI::Option* option : command.get_options()) {
    if (option->get_expected() == 1) option->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  }
}

}  // namespace tb::cli
