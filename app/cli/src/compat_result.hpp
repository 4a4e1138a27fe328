// One release judged for one host, with the advice that goes with it: what
// both the JSON and the text renderers of `trainbench compat` print.
#pragma once

#include <string>
#include <vector>

#include "compat_advice.hpp"
#include "compat_inputs.hpp"
#include "tb/compat/verdict.hpp"

namespace tb::cli {

/// The verdict for a release plus the steps a person should take.
struct ReleaseVerdict {
  const catalog::Release* release = nullptr;
  compat::CompatVerdict verdict;
  std::vector<std::string> nextSteps;
};

[[nodiscard]] inline ReleaseVerdict judgeRelease(const catalog::Release& release,
                                                 const catalog::Catalog& catalog,
                                                 const JudgedHost& host) {
  ReleaseVerdict result{&release, compat::evaluateCompat(release, catalog, host.query), {}};
  result.nextSteps = nextSteps(release, catalog, host.query, result.verdict);
  return result;
}

}  // namespace tb::cli
