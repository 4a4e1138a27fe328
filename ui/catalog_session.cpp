// Loading goes through the core loader and merge, never through Qt's JSON,
// so the GUI refuses exactly what the CLI refuses, with the same message.
#include "ui/catalog_session.h"

#include <filesystem>
#include <utility>

#include "tb/catalog/catalog_loader.hpp"

namespace tb::ui {

CatalogSession::CatalogSession(tb::catalog::Catalog catalog, QObject* parent)
    : QObject(parent), catalog_(std::move(catalog)) {}

tb::Status CatalogSession::loadExtraCatalog(const QString& path) {
  const std::filesystem::path file(path.toStdString());
  tb::Expected<tb::catalog::Catalog> extra = tb::catalog::loadCatalogFile(file);
  if (!extra) return extra.error();
  catalog_ = tb::catalog::mergeCatalogs(catalog_, *extra);
  Q_EMIT catalogChanged();
  return {};
}

const tb::catalog::Release* CatalogSession::selectedRelease() const {
  if (selectedTag_.isEmpty()) return nullptr;
  return catalog_.findRelease(selectedTag_.toStdString());
}

void CatalogSession::selectRelease(const QString& tag) {
  const QString next = catalog_.findRelease(tag.toStdString()) ? tag : QString();
  if (next == selectedTag_) return;
  selectedTag_ = next;
  Q_EMIT selectedReleaseChanged(selectedTag_);
}

}  // namespace tb::ui
