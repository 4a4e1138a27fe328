// The pages of the Studio as the CLI contract names them (`--page ID`).
// Every planned page is listed so that `--page memory` can say "not available
// yet" instead of "unknown"; only pages marked built appear in the sidebar.
#pragma once

#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace tb::ui {

/// One page of the main window.
struct StudioPage {
  QString id;        ///< command-line id: "image"
  QString title;     ///< sidebar label: "Image"
  QString iconPath;  ///< resource path of the sidebar icon
  bool built = false;
};

/// All pages in sidebar order, built or not.
[[nodiscard]] const std::vector<StudioPage>& studioPages();

/// The page with this id, or nothing when the id names no page at all.
[[nodiscard]] std::optional<StudioPage> findStudioPage(const QString& id);

/// Ids of the pages that are built, in sidebar order.
[[nodiscard]] QStringList availablePageIds();

/// Ids of every page, built or not.
[[nodiscard]] QStringList allPageIds();

}  // namespace tb::ui
