// The page list is data, not a switch statement scattered across the main
// window and main(): a new page is a row here and its widget registered in
// MainWindow.
#include "ui/studio_pages.h"

#include <QCoreApplication>

namespace tb::ui {

namespace {

QString pageTitle(const char* text) {
  return QCoreApplication::translate("tb::ui::StudioPages", text);
}

}  // namespace

const std::vector<StudioPage>& studioPages() {
  static const std::vector<StudioPage> pages = {
      {QStringLiteral("image"), pageTitle("Image"), QStringLiteral(":/icons/page-image.svg")},
      {QStringLiteral("optimizations"), pageTitle("Optimizations"),
       QStringLiteral(":/icons/page-optimizations.svg")},
      {QStringLiteral("memory"), pageTitle("Memory"), QStringLiteral(":/icons/page-memory.svg")},
      {QStringLiteral("runs"), pageTitle("Runs"), QStringLiteral(":/icons/page-runs.svg")},
      {QStringLiteral("ablation"), pageTitle("Ablation"),
       QStringLiteral(":/icons/page-ablation.svg")},
      {QStringLiteral("reports"), pageTitle("Reports"), QStringLiteral(":/icons/page-reports.svg")},
  };
  return pages;
}

std::optional<StudioPage> findStudioPage(const QString& id) {
  for (const StudioPage& page : studioPages()) {
    if (page.id == id) return page;
  }
  return std::nullopt;
}

QStringList studioPageIds() {
  QStringList ids;
  for (const StudioPage& page : studioPages()) ids.append(page.id);
  return ids;
}

}  // namespace tb::ui
