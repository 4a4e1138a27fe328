// "What to do" for a verdict. Kept apart from the banner widget so the advice
// is a plain function of (release, query, verdict) that tests can call.
#pragma once

#include <QStringList>

#include <vector>

#include "tb/catalog/catalog.hpp"
#include "tb/compat/verdict.hpp"

namespace tb::ui {

/// Concrete next steps: the driver to install, the release to pick for the
/// architecture, or the image to pull when all is well.
[[nodiscard]] QStringList verdictActions(const tb::catalog::Release& release,
                                         const tb::compat::CompatQuery& query,
                                         const tb::compat::CompatVerdict& verdict,
                                         const std::vector<tb::catalog::Release>& allReleases);

}  // namespace tb::ui
