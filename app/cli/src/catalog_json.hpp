// The JSON shape of catalog data in CLI output (`images --json`). Field names
// are part of the CLI contract and documented in docs/CLI.md.
#pragma once

#include "output.hpp"
#include "tb/catalog/catalog.hpp"

namespace tb::cli {

/// ["amd64", "arm64"]
[[nodiscard]] Json architecturesToJson(const std::vector<catalog::CpuArch>& architectures);

/// One release with every field the catalog holds.
[[nodiscard]] Json releaseToJson(const catalog::Release& release);

/// {"catalog_version", "sources", "releases": [...]}.
[[nodiscard]] Json catalogToJson(const catalog::Catalog& catalog);

}  // namespace tb::cli
