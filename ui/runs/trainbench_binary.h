// Which `trainbench` the Studio runs. The one installed next to the Studio
// comes first so a GUI and its engine always match; PATH is the fallback for
// developer builds; TRAINBENCH_BINARY overrides both (tests, packagers).
#pragma once

#include <QString>

namespace tb::ui {

/// TRAINBENCH_BINARY, else `trainbench` in the application's directory, else
/// the one on PATH, else the bare name (starting it then fails with a message).
[[nodiscard]] QString trainbenchBinary();

}  // namespace tb::ui
