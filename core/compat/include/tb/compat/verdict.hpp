// The compatibility verdict: will a release run on a host with this driver,
// GPU and CPU architecture? The rules, in order:
//  1. architecture not published for the release       -> Unsupported
//  2. driver major >= the release's required driver    -> Supported
//  3. data-center GPU on a branch the release allows for forward
//     compatibility, at or above that branch's minimum  -> ForwardCompatible
//  4. otherwise                                         -> Unsupported
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tb/catalog/catalog.hpp"
#include "tb/compat/gpu_class.hpp"

namespace tb::compat {

enum class VerdictStatus { Supported, ForwardCompatible, Unsupported };

/// "supported", "forward-compatible", "unsupported".
[[nodiscard]] std::string_view toString(VerdictStatus status) noexcept;

/// What the verdict is asked about. No driver means none was found.
struct CompatQuery {
  std::optional<catalog::DriverVersion> driver;
  std::string gpuName;  ///< as nvidia-smi prints it; empty when unknown
  int gpuCount = 1;
  catalog::CpuArch arch = catalog::CpuArch::Amd64;
  std::string today;  ///< "YYYY-MM-DD", for end-of-life checks of branches
};

/// The answer, with every reason spelled out for a person.
struct CompatVerdict {
  VerdictStatus status = VerdictStatus::Unsupported;
  GpuClass gpuClass = GpuClass::Unknown;
  std::vector<std::string> reasons;   ///< why the status is what it is
  std::vector<std::string> warnings;  ///< what to watch out for even so
  /// The driver to install when Unsupported for driver reasons.
  std::optional<catalog::DriverVersion> upgradeTo;
};

/// Applies the rules to one release. `catalog` supplies NVIDIA's branch
/// lifecycle and toolkit tables.
[[nodiscard]] CompatVerdict evaluateCompat(const catalog::Release& release,
                                           const catalog::Catalog& catalog,
                                           const CompatQuery& query);

/// Today's date in UTC as "YYYY-MM-DD".
[[nodiscard]] std::string todayUtc();

}  // namespace tb::compat
