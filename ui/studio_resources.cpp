#include "ui/studio_resources.h"

#include <QtGlobal>

// Q_INIT_RESOURCE must be called outside any namespace.
static void registerStudioResources() { Q_INIT_RESOURCE(studio); }

namespace tb::ui {

void initStudioResources() {
  static const bool registered = [] {
    registerStudioResources();
    return true;
  }();
  (void)registered;
}

}  // namespace tb::ui
