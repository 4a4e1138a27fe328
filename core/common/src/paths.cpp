#include "tb/common/paths.hpp"

#include <cstdlib>

namespace tb {
namespace {

// The XDG base directory spec: an unset or relative variable is ignored.
std::filesystem::path xdgDirectory(const char* variable, const char* fallbackUnderHome) {
  if (const char* value = std::getenv(variable); value != nullptr && value[0] == '/') {
    return std::filesystem::path(value) / "trainbench";
  }
  const char* home = std::getenv("HOME");
  const std::filesystem::path base = (home != nullptr && home[0] != '\0') ? home : "/tmp";
  return base / fallbackUnderHome / "trainbench";
}

}  // namespace

std::filesystem::path dataDirectory() { return xdgDirectory("XDG_DATA_HOME", ".local/share"); }

std::filesystem::path configDirectory() { return xdgDirectory("XDG_CONFIG_HOME", ".config"); }

}  // namespace tb
