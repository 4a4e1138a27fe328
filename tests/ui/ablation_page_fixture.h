// What both Ablation page suites share: the page under test with its own
// settings, the test data it reads, and readers of its table and charts.
#pragma once

#include <QDir>
#include <QString>

#include <memory>
#include <source_location>

#include "plotting/ablation_charts.h"
#include "ui/ablation/ablation_page.h"
#include "ui/ablation/ablation_table_model.h"
#include "ui_test_support.h"

namespace tb::ui::test {

inline QString benchData(const char* name) {
  return QDir(QStringLiteral(TB_BENCH_TEST_DATA)).filePath(QString::fromLatin1(name));
}

inline QString logData(const char* name) {
  return QDir(QStringLiteral(TB_BENCH_TEST_DATA "/../logs")).filePath(QString::fromLatin1(name));
}

inline QString cell(const AblationTableModel& model, int row, int column) {
  return model.data(model.index(row, column), Qt::DisplayRole).toString();
}

/// The table row of `label` from `source` ("engine", "cluster"); -1 if none.
inline int rowOf(const AblationTableModel& model, const char* label, const char* source) {
  for (int row = 0; row < model.rowCount(); ++row) {
    if (model.row(row)->label == label && model.row(row)->source == source) return row;
  }
  return -1;
}

/// Owns the page and its settings; the suites make it in init() and drop it in cleanup().
class AblationPageFixture {
 protected:
  TestSandbox sandbox_;
  std::unique_ptr<StudioSettings> settings_;
  std::unique_ptr<AblationPage> page_;

  AblationPage& page() { return *page_; }

  template <class T>
  T* widget(const char* name, const std::source_location& where = std::source_location::current()) {
    return child<T>(page_.get(), name, where);
  }
  tb::plotting::AblationThroughputChart* throughputChart() {
    return widget<tb::plotting::AblationThroughputChart>("ablationThroughputChart");
  }

  /// A new page over the settings as they are now (what a restart restores).
  void makePage(SettingsAccess access = SettingsAccess::ReadWrite) {
    page_.reset();
    settings_ = std::make_unique<StudioSettings>(access);
    page_ = std::make_unique<AblationPage>(*settings_);
    page_->resize(1230, 860);
    page_->show();
  }

  void useSandboxDataHome() {
    qputenv("XDG_DATA_HOME", QDir(sandbox_.home()).filePath(QStringLiteral("data")).toLocal8Bit());
  }
};

}  // namespace tb::ui::test
