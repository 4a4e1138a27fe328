// Where TrainBench keeps its files when run from the CLI (the GUI uses
// QStandardPaths, which resolves to the same XDG directories on Linux).
#pragma once

#include <filesystem>

namespace tb {

/// $XDG_DATA_HOME/trainbench, or ~/.local/share/trainbench.
std::filesystem::path dataDirectory();

/// $XDG_CONFIG_HOME/trainbench, or ~/.config/trainbench.
std::filesystem::path configDirectory();

}  // namespace tb
