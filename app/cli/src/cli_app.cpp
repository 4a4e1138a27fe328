// Builds the CLI11 app, registers the commands and maps every way a run can
// end onto the exit codes of the CLI contract. CLI11's own exit codes (105,
// 106, ...) are not part of that contract, so every parse error becomes 2.
#include "tb/cli/cli_app.hpp"

#include <CLI/CLI.hpp>

#include <array>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "command.hpp"
#include "exit_codes.hpp"

#include "tb/common/build_info.hpp"
#include "tb/registry/http_transport.hpp"

#if TB_HAVE_ENGINE
#include "tb/engine/blas_kernels.hpp"
#include "tb/engine/library_versions.hpp"
#endif

namespace tb::cli {
namespace {

char** restartArguments = nullptr;  ///< main()'s argv once allowRestart was called

// One line per command; later commands (run, memory, plan, ...) add theirs.
constexpr std::array<CommandRegistrar, 12> kCommands = {
    &registerImagesCommand,   &registerCompatCommand,    &registerRunCommand,
    &registerRegistryCommand, &registerMemoryCommand,    &registerPlanCommand,
    &registerConfigCommand,   &registerValidateCommand,  &registerImportCommand,
    &registerReportCommand,   &registerBenchmarkCommand, &registerAblationCommand,
};

/// What this trainbench was built with and runs on, for --version.
std::vector<ComponentVersion> buildComponents() {
#if TB_HAVE_ENGINE
  std::vector<ComponentVersion> components = engine::engineLibraryVersions();
#else
  std::vector<ComponentVersion> components{
      {"LibTorch", "not found at build time: no training engine"}};
#endif
  components.push_back({"registry client", registry::transportLibraryVersion()});
  return components;
}

std::string failureMessage(const CLI::App* /*app*/, const CLI::Error& error) {
  return "trainbench: " + std::string(error.what()) + "\nRun with --help for more information.\n";
}

void addGlobalOptions(CLI::App& app, GlobalOptions& globals) {
  // Asked only when --version is given: the engine's libraries report
  // themselves at run time (the BLAS kernel depends on the CPU).
  app.set_version_flag("--version", [] {
    std::string text = versionText("trainbench", buildComponents());
    text.pop_back();  // CLI11 ends the line itself
    return text;
  });
  app.add_option("--catalog", globals.catalogFiles,
                 "Extra release catalog (JSON) laid over the built-in one; repeatable, "
                 "later files win")
      ->type_name("FILE")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

std::string commandNames(const CLI::App& app) {
  std::string names;
  for (const CLI::App* command : app.get_subcommands([](const CLI::App*) { return true; })) {
    names += (names.empty() ? "" : ", ") + command->get_name();
  }
  return names;
}

// CLI11 reports a missing or mistyped command only as "A subcommand is
// required"; the word the user typed is left over among the unparsed
// arguments, so the message can name it, and the commands there are. The
// same holds one level down (`trainbench registry` without tags/inspect).
std::optional<std::string> commandProblem(const CLI::App& app, const CLI::ParseError& error) {
  const CLI::App* level = &app;
  std::string path;
  while (!level->get_subcommands().empty()) {
    level = level->get_subcommands().front();
    path += level->get_name() + ": ";
  }
  const std::string names = commandNames(*level);
  if (names.empty()) return std::nullopt;  // a command without subcommands: CLI11's own message
  const std::string what = level == &app ? "command" : "subcommand";
  const std::vector<std::string> leftover = level->remaining();
  if (!leftover.empty() && !leftover.front().starts_with("-")) {
    return path + "unknown " + what + " '" + leftover.front() + "'; " + what + "s: " + names;
  }
  if (leftover.empty() && error.get_name() == "RequiredError") {
    return path + "no " + what + " given; " + what + "s: " + names;
  }
  return std::nullopt;
}

}  // namespace

void allowRestart(char** argv) { restartArguments = argv; }

void restartForBlasKernelsIfAllowed() {
#if TB_HAVE_ENGINE
  if (restartArguments != nullptr) engine::restartWithBlasKernelsForThisCpu(restartArguments);
#endif
}

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"TrainBench: will a training-nv-pytorch image run here, and how to use it well.",
               "trainbench"};
  app.failure_message(failureMessage);
  app.require_subcommand(1);
  app.footer(
      "Run 'trainbench COMMAND --help' for a command's options.\n"
      "Exit codes: 0 success, 1 runtime failure, 2 usage or bad input, 3 a check said no.\n"
      "With --json a command prints exactly one JSON document on stdout. See docs/CLI.md.");
  // Subcommands hand options they do not know (--catalog) to the top level,
  // so global options may come before or after the command name.
  app.fallthrough();

  GlobalOptions globals;
  addGlobalOptions(app, globals);

  std::array<RegisteredCommand, kCommands.size()> commands{};
  for (std::size_t i = 0; i < kCommands.size(); ++i) commands[i] = kCommands[i](app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    if (const auto problem = commandProblem(app, error)) {
      err << "trainbench: " << *problem << "\nRun with --help for more information.\n";
      return kExitBadInput;
    }
    const int code = app.exit(error, out, err);
    return code == 0 ? kExitSuccess : kExitBadInput;
  }

  const CommandContext context(globals, out, err,
                               std::vector<std::string>(argv + (argc > 0 ? 1 : 0), argv + argc));
  for (const RegisteredCommand& command : commands) {
    if (!command.subcommand->parsed()) continue;
    try {
      return command.action(context);
    } catch (const std::exception& error) {
      // A broken contract inside a command: report it instead of aborting.
      err << "trainbench: internal error: " << error.what() << '\n';
      return kExitRuntimeFailure;
    }
  }
  err << "trainbench: no command was chosen\n";
  return kExitBadInput;
}

}  // namespace tb::cli
