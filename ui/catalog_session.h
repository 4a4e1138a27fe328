// The catalog the Studio works on, as one document of record (Tiled's
// MapDocument idea): pages read it and listen to its signals instead of
// keeping their own copies, so loading an extra catalog updates every view.
#pragma once

#include <QObject>
#include <QString>

#include "tb/catalog/catalog.hpp"
#include "tb/common/expected.hpp"

namespace tb::ui {

/// Holds the current catalog and the release the user has chosen.
class CatalogSession : public QObject {
  Q_OBJECT

 public:
  explicit CatalogSession(tb::catalog::Catalog catalog, QObject* parent = nullptr);

  [[nodiscard]] const tb::catalog::Catalog& catalog() const noexcept { return catalog_; }

  /// Reads a catalog file and lays it over the current one. All or nothing:
  /// on error the catalog is unchanged and the error names the file, the
  /// JSON path and what is wrong.
  tb::Status loadExtraCatalog(const QString& path);

  /// The chosen release's tag; empty when none is chosen.
  [[nodiscard]] QString selectedReleaseTag() const { return selectedTag_; }
  /// The chosen release, or nullptr.
  [[nodiscard]] const tb::catalog::Release* selectedRelease() const;
  /// Chooses a release; a tag the catalog does not hold clears the choice.
  void selectRelease(const QString& tag);

 Q_SIGNALS:
  /// The catalog was replaced (releases may have been added or changed).
  void catalogChanged();
  /// The chosen release changed; `tag` is empty when none is chosen.
  void selectedReleaseChanged(const QString& tag);

 private:
  tb::catalog::Catalog catalog_;
  QString selectedTag_;
};

}  // namespace tb::ui
