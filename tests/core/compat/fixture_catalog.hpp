// A catalog built in code for the compat tests, so that they check the rules
// and not the shipped data: its numbers follow NVIDIA's tables and the
// images' release notes, but a change to resources/catalog cannot move them.
// A test that needs a variant copies it and edits the copy.
#pragma once

#include <string_view>

#include "tb/catalog/catalog.hpp"

namespace tb::compat::fixture {

/// A driver version the test knows to be well formed; aborts the test binary otherwise.
[[nodiscard]] catalog::DriverVersion driver(std::string_view text);

/// Releases 25.04 (requires 570, CUDA 12.8.0), 25.06 (575, CUDA 12.9.1),
/// 25.09 (575, CUDA 12.8.0, amd64 only) and 25.10 (575, amd64 and arm64),
/// each allowing R470 from 470.57, R525 from 525.85, R535 from 535.86 and
/// R545 from 545.23 and listing R418 ... R560 (R545 included) as must-upgrade;
/// NVIDIA's toolkit table from CUDA 12.2 on; branches R470 ... R595 with
/// R535 (LTS, end of life 2026-06) and R580 (LTS, 2028-06) in the matrix.
[[nodiscard]] const catalog::Catalog& catalog();

/// The release with that tag in catalog(); aborts the test binary when absent.
[[nodiscard]] const catalog::Release& release(std::string_view tag);

}  // namespace tb::compat::fixture
