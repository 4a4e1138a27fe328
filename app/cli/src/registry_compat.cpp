// Bad input (a reference without a tag) is refused before any connection;
// network and registry errors pass through with the host and status the
// client put in them.
#include "registry_compat.hpp"

#include "tb/common/text.hpp"
#include "tb/registry/image_reference.hpp"

namespace tb::cli {

Expected<registry::DeclaredRelease> releaseFromRegistry(const catalog::Release& catalogRelease,
                                                        const std::string& imageText,
                                                        catalog::CpuArch arch,
                                                        const RegistryOptions& options,
                                                        std::ostream& err) {
  auto reference = registry::parseImageReference(trim(imageText), registry::TagPolicy::Required);
  if (!reference) return makeError(ErrorKind::BadInput, "--image: " + reference.error().message);
  auto client = makeRegistryClient(reference->registry, options, err);
  if (!client) return std::move(client).error();
  auto inspection =
      registry::inspectImage(**client, reference->repository, reference->manifestReference());
  if (!inspection) return std::move(inspection).error();
  return registry::applyDeclaration(&catalogRelease, *inspection, reference->manifestReference(),
                                    arch);
}

}  // namespace tb::cli
