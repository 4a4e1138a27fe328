// One validator per file kind, each filling a FindingSink from the file's
// text. validation.cpp picks the validator; the rules shared by several kinds
// live in validation_common.hpp.
#pragma once

#include <string_view>

#include "tb/catalog/catalog.hpp"
#include "validation_common.hpp"

namespace tb::config::detail {

void validateDeepSpeedJson(FindingSink& sink, std::string_view content);
void validateEnvFile(FindingSink& sink, std::string_view content);
void validateKubernetesManifest(FindingSink& sink, std::string_view content,
                                const catalog::Catalog& catalog);
void validateTrainingArgs(FindingSink& sink, std::string_view content);
void validateDockerfile(FindingSink& sink, std::string_view content,
                        const catalog::Catalog& catalog);

}  // namespace tb::config::detail
