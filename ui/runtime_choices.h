// The engine runtimes a user can pick, offered the same way on the Runs page
// (what to train on) and the Memory page (what to predict), so that the two
// lists never drift apart. The data of each item is --runtime's spelling.
#pragma once

#include <QComboBox>
#include <QCoreApplication>
#include <QStringLiteral>

namespace tb::ui {

inline void addRuntimeChoices(QComboBox* box) {
  box->addItem(QCoreApplication::translate("tb::ui::RuntimeChoices", "Tuned (AC2)"),
               QStringLiteral("tuned"));
  box->addItem(QCoreApplication::translate("tb::ui::RuntimeChoices", "Stock"),
               QStringLiteral("stock"));
}

}  // namespace tb::ui
