// The catalog stores full image references, not hosts: the host and
// repository are recovered with the registry module's own parser, so the
// panel and `trainbench registry` agree on what "the registry" of a release is.
#include "ui/image/registry_endpoints.h"

#include <QObject>
#include <algorithm>

#include "tb/registry/image_reference.hpp"
#include "ui/qt_text.h"

namespace tb::ui {
namespace {

constexpr std::string_view kRegionPlaceholder = "{region-id}";

void addEndpoint(std::vector<RegistryEndpoint>& endpoints, const std::string& reference,
                 const QString& description) {
  const auto parsed =
      tb::registry::parseImageReference(reference, tb::registry::TagPolicy::Required);
  if (!parsed) return;
  const QString host = toQString(parsed->registry);
  const bool known = std::any_of(endpoints.begin(), endpoints.end(),
                                 [&host](const RegistryEndpoint& e) { return e.host == host; });
  if (!known) endpoints.push_back({host, toQString(parsed->repository), description});
}

}  // namespace

std::vector<RegistryEndpoint> registryEndpoints(const tb::catalog::Catalog& catalog) {
  std::vector<RegistryEndpoint> endpoints;
  // Newest first: if an endpoint ever moves, the current one wins.
  for (auto release = catalog.releases.rbegin(); release != catalog.releases.rend(); ++release) {
    if (!release->image.empty()) {
      addEndpoint(endpoints, release->image, QObject::tr("Public endpoint"));
    }
  }
  for (auto release = catalog.releases.rbegin(); release != catalog.releases.rend(); ++release) {
    const auto placeholder = release->vpcImagePattern.find(kRegionPlaceholder);
    if (placeholder == std::string::npos) continue;
    for (const std::string& region : release->vpcRegions) {
      std::string reference = release->vpcImagePattern;
      reference.replace(placeholder, kRegionPlaceholder.size(), region);
      addEndpoint(endpoints, reference,
                  QObject::tr("VPC mirror in %1 (reachable only from inside that region)")
                      .arg(toQString(region)));
    }
  }
  return endpoints;
}

}  // namespace tb::ui
