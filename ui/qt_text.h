// The core speaks UTF-8 std::string; Qt speaks QString. One pair of helpers
// for the crossing keeps the conversion (and its encoding) in one place.
#pragma once

#include <QString>
#include <QStringList>

#include <string>
#include <string_view>
#include <vector>

namespace tb::ui {

/// A core string (UTF-8) as a QString.
[[nodiscard]] inline QString toQString(std::string_view text) {
  return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

[[nodiscard]] inline QStringList toQStringList(const std::vector<std::string>& items) {
  QStringList list;
  list.reserve(static_cast<qsizetype>(items.size()));
  for (const std::string& item : items) list.append(toQString(item));
  return list;
}

/// A QString as a core string (UTF-8).
[[nodiscard]] inline std::string toStdString(const QString& text) { return text.toStdString(); }

}  // namespace tb::ui
