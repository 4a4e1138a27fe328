// The one-glance answer above the charts: does the chosen policy fit, what
// the planner recommends, or, when nothing fits, the smallest card that
// would. It borrows the Image page's verdict colours so green, amber and red
// mean the same across the Studio.
#pragma once

#include <QFrame>

#include "ui/image/verdict_style.h"

class QLabel;

namespace tb::ui {

struct MemoryView;

/// Title and detail line in a tinted, striped frame.
class MemorySummaryBanner : public QFrame {
  Q_OBJECT

 public:
  explicit MemorySummaryBanner(QWidget* parent = nullptr);

  void showView(const MemoryView& view);
  [[nodiscard]] QString title() const;
  [[nodiscard]] QString detail() const;
  [[nodiscard]] VerdictTone tone() const { return tone_; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  void changeEvent(QEvent* event) override;

 private:
  void present(VerdictTone tone, const QString& title, const QString& detail);

  QLabel* title_ = nullptr;
  QLabel* detail_ = nullptr;
  VerdictTone tone_ = VerdictTone::Incomplete;
};

}  // namespace tb::ui
