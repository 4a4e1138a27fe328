// The Studio's compiled-in resources (icons) live in a static library, whose
// resource initializer the linker would drop as unreferenced; whatever reads
// ":/icons/…" first registers them through here.
#pragma once

namespace tb::ui {

/// Registers the Studio's resources once; safe to call from anywhere, often.
void initStudioResources();

}  // namespace tb::ui
