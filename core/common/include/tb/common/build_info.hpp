// What was built: the project version and the source tree's git
// description, for `trainbench --version`, the Studio's About box and the
// records runs leave. The text is generated at build time
// (cmake/TrainBenchBuildInfoScript.cmake), so it follows every commit.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tb {

/// The project's version from CMake ("0.1.0").
[[nodiscard]] std::string_view projectVersion();
/// `git describe --always --dirty --tags` of the tree built ("5375fb8-dirty");
/// empty where it was not a git checkout.
[[nodiscard]] std::string_view gitDescription();

/// A library the program runs on and its version, as the library itself
/// reports it at run time where it can ("LibTorch", "1.13.0").
struct ComponentVersion {
  std::string name;
  std::string version;
};

/// "trainbench 0.1.0 (git 5375fb8)" and one "  name version" line per
/// component, the text `--version` prints.
[[nodiscard]] std::string versionText(std::string_view program,
                                      const std::vector<ComponentVersion>& components);

}  // namespace tb
