// The registrar of a command a build leaves out, so that the command list
// stays the same and asking for it says why it is missing.
#include <CLI/CLI.hpp>

#include "command.hpp"

namespace tb::cli {

RegisteredCommand registerUnavailableCommand(CLI::App& app, const std::string& name,
                                             const std::string& description,
                                             const std::string& why) {
  CLI::App* command = app.add_subcommand(name, description + " (not in this build)");
  // Every argument after the name stays the command's, unparsed (not handed
  // up to the top level as the other commands do): none can be wrong, so
  // the message is always the one below.
  command->fallthrough(false);
  command->allow_extras();
  return {command, [name, why](const CommandContext& context) {
            return context.fail(makeError(
                ErrorKind::Runtime, name + ": this trainbench was built without it (" + why + ")"));
          }};
}

}  // namespace tb::cli
