// File > Open Recent: the files last opened through the window (the command
// line, the desktop, File > Open, drops), most recent first. Stored under
// keys::kRecentFiles; the rules are pure functions so they are tested alone.
#pragma once

#include <QStringList>

namespace tb::ui {

/// How many files the menu lists.
inline constexpr int kRecentFilesCap = 10;

/// `recent` with `opened` put first, each path absolute and clean, none
/// twice, at most kRecentFilesCap.
[[nodiscard]] QStringList withOpened(const QStringList& recent, const QStringList& opened);

/// The files of `recent` that still exist, in order: a moved or deleted
/// file leaves the menu instead of failing when picked.
[[nodiscard]] QStringList existingRecent(const QStringList& recent);

}  // namespace tb::ui
