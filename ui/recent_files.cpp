#include "ui/recent_files.h"

#include <QDir>
#include <QFileInfo>

namespace tb::ui {

QStringList withOpened(const QStringList& recent, const QStringList& opened) {
  QStringList out;
  const auto add = [&out](const QString& path) {
    const QString clean = QDir::cleanPath(QFileInfo(path).absoluteFilePath());
    if (!clean.isEmpty() && !out.contains(clean) && out.size() < kRecentFilesCap) out.append(clean);
  };
  // The last file opened comes first, as in every application's menu.
  for (auto it = opened.crbegin(); it != opened.crend(); ++it) add(*it);
  for (const QString& path : recent) add(path);
  return out;
}

QStringList existingRecent(const QStringList& recent) {
  QStringList out;
  for (const QString& path : recent) {
    if (QFileInfo::exists(path)) out.append(path);
  }
  return out;
}

}  // namespace tb::ui
