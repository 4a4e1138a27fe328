// How a command plugs into the CLI. Each command lives in its own file and
// exposes one registrar: it adds its subcommand (options, help) to the app and
// returns the action to run when the user picked it. Adding a command is one
// more file plus one line in cli_app.cpp's table.
#pragma once

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tb/catalog/catalog.hpp"
#include "tb/common/expected.hpp"

namespace CLI {
class App;
}

namespace tb::cli {

/// Options that every command accepts, parsed by the top-level app.
struct GlobalOptions {
  std::vector<std::string> catalogFiles;  ///< --catalog FILE, in the order given
};

/// What a command's action works with: the output streams and the global
/// options. Commands write only through these streams.
class CommandContext {
 public:
  CommandContext(const GlobalOptions& globals, std::ostream& out, std::ostream& err,
                 std::vector<std::string> arguments = {})
      : globals_(globals), out_(out), err_(err), arguments_(std::move(arguments)) {}

  [[nodiscard]] std::ostream& out() const { return out_; }
  [[nodiscard]] std::ostream& err() const { return err_; }
  /// The command line after the program name, as given: a launcher starts
  /// its workers with it, less its own options.
  [[nodiscard]] const std::vector<std::string>& arguments() const { return arguments_; }

  /// The built-in catalog with every --catalog file laid over it in order.
  /// Errors are bad input and name the file and the JSON path.
  [[nodiscard]] Expected<catalog::Catalog> loadCatalog() const;

  /// Prints "trainbench: <message>" on stderr and returns the exit code for
  /// the error's kind.
  int fail(const Error& error) const;

 private:
  const GlobalOptions& globals_;
  std::ostream& out_;
  std::ostream& err_;
  std::vector<std::string> arguments_;
};

/// This very binary (/proc/self/exe, not argv[0]): what `benchmark` and the
/// data-parallel launcher start as their children, and where
/// trainbench-charts is looked for beside it.
[[nodiscard]] Expected<std::filesystem::path> thisProgram();

/// Replaces the process with a fresh start on OpenBLAS's kernels for this CPU
/// when main() allowed it (allowRestart) and the library fell back to its
/// generic ones; returns otherwise. For commands that multiply, before they
/// write anything.
void restartForBlasKernelsIfAllowed();

/// Runs a parsed command and returns its exit code.
using CommandAction = std::function<int(const CommandContext&)>;

/// A subcommand of the app and the action behind it.
struct RegisteredCommand {
  CLI::App* subcommand = nullptr;
  CommandAction action;
};

/// Lets a single-value option given twice take the last value, so that a
/// wrapper script's defaults can be overridden by appending. Call after the
/// command's options are added.
void takeLastOfRepeatedValues(CLI::App& command);

/// Adds one command to the app.
using CommandRegistrar = RegisteredCommand (*)(CLI::App& app);

RegisteredCommand registerImagesCommand(CLI::App& app);
RegisteredCommand registerCompatCommand(CLI::App& app);
RegisteredCommand registerRunCommand(CLI::App& app);
RegisteredCommand registerRegistryCommand(CLI::App& app);
RegisteredCommand registerMemoryCommand(CLI::App& app);
RegisteredCommand registerPlanCommand(CLI::App& app);
RegisteredCommand registerConfigCommand(CLI::App& app);
RegisteredCommand registerValidateCommand(CLI::App& app);
RegisteredCommand registerImportCommand(CLI::App& app);
RegisteredCommand registerReportCommand(CLI::App& app);
RegisteredCommand registerBenchmarkCommand(CLI::App& app);
RegisteredCommand registerAblationCommand(CLI::App& app);

/// A command this build left out (a component switched off at configure
/// time): it is listed, takes any arguments, and fails with exit 1 saying
/// which build option and library it needs (`why`).
RegisteredCommand registerUnavailableCommand(CLI::App& app, const std::string& name,
                                             const std::string& description,
                                             const std::string& why);

}  // namespace tb::cli
