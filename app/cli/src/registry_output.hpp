// What `trainbench registry` prints, as text for people and one JSON document
// for programs; the field names are documented in docs/CLI.md.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "output.hpp"
#include "tb/registry/image_reference.hpp"
#include "tb/registry/registry_client.hpp"

namespace tb::cli {

[[nodiscard]] Json tagsToJson(const registry::ImageReference& repository,
                              const std::vector<std::string>& tags);
void printTags(std::ostream& out, const registry::ImageReference& repository,
               const std::vector<std::string>& tags);

[[nodiscard]] Json inspectionToJson(const registry::ImageReference& reference,
                                    const registry::ImageInspection& inspection);
void printInspection(std::ostream& out, const registry::ImageInspection& inspection);

}  // namespace tb::cli
