// "What to do" after a verdict: concrete next steps for a person, derived
// from the verdict and the catalog (which releases this host can run instead).
#pragma once

#include <string>
#include <vector>

#include "tb/catalog/catalog.hpp"
#include "tb/compat/verdict.hpp"

namespace tb::cli {

/// Steps in the order a person should take them; never empty.
[[nodiscard]] std::vector<std::string> nextSteps(const catalog::Release& release,
                                                 const catalog::Catalog& catalog,
                                                 const compat::CompatQuery& query,
                                                 const compat::CompatVerdict& verdict);

}  // namespace tb::cli
