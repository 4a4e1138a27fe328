#include "tb/common/build_info.hpp"

#include <algorithm>

namespace tb {

std::string versionText(std::string_view program, const std::vector<ComponentVersion>& components) {
  std::string text = std::string(program) + " " + std::string(projectVersion());
  if (!gitDescription().empty()) text += " (git " + std::string(gitDescription()) + ")";
  text += '\n';
  std::size_t width = 0;
  for (const ComponentVersion& component : components)
    width = std::max(width, component.name.size());
  for (const ComponentVersion& component : components) {
    text += "  " + component.name + std::string(width - component.name.size() + 2, ' ') +
            component.version + '\n';
  }
  return text;
}

}  // namespace tb
