// Where the panel looks by default: the hosts the catalog's releases are
// published on (the public endpoint and the per-region VPC mirrors), so a
// user of the image never has to type a registry name to check a tag.
#pragma once

#include <QString>
#include <vector>

#include "tb/catalog/catalog.hpp"

namespace tb::ui {

/// One registry host and repository that serves the releases.
struct RegistryEndpoint {
  QString host;         ///< "egslingjun-registry.cn-wulanchabu.cr.aliyuncs.com"
  QString repository;   ///< "egslingjun/training-nv-pytorch"
  QString description;  ///< "Public endpoint", "VPC mirror in cn-beijing"
};

/// The public endpoint first, then one VPC mirror per region, without
/// duplicates, taken from the newest release that names them.
[[nodiscard]] std::vector<RegistryEndpoint> registryEndpoints(const tb::catalog::Catalog& catalog);

}  // namespace tb::ui
