// The pages of the Studio as the CLI contract names them (`--page ID`), in
// sidebar order: the main window, main() and the tests read this one list.
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
};

/// All pages in sidebar order.
[[nodiscard]] const std::vector<StudioPage>& studioPages();

/// The page with this id, or nothing when the id names no page at all.
[[nodiscard]] std::optional<StudioPage> findStudioPage(const QString& id);

/// Ids of every page, in sidebar order.
[[nodiscard]] QStringList studioPageIds();

}  // namespace tb::ui
