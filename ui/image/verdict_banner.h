// The answer to "will this release run here?", readable at a glance: a
// coloured stripe and title for the status, then why, what to watch out for,
// and what to do. Grey means the question is not complete yet.
#pragma once

#include <QColor>
#include <QFrame>
#include <QString>
#include <QStringList>

#include "tb/catalog/catalog.hpp"
#include "tb/compat/verdict.hpp"
#include "ui/image/verdict_style.h"

class QLabel;

namespace tb::ui {

/// Shows one CompatVerdict, or why there is none yet.
class VerdictBanner : public QFrame {
  Q_OBJECT

 public:
  explicit VerdictBanner(QWidget* parent = nullptr);

  /// Shows the verdict for `release` and the query that produced it.
  /// `allReleases` lets the advice name releases built for another architecture.
  void showVerdict(const tb::catalog::Release& release, const tb::compat::CompatQuery& query,
                   const tb::compat::CompatVerdict& verdict,
                   const std::vector<tb::catalog::Release>& allReleases);
  /// Grey banner: the input is incomplete or invalid. `detail` says what is missing.
  void showIncomplete(const QString& title, const QString& detail);

  [[nodiscard]] VerdictTone tone() const noexcept { return tone_; }
  [[nodiscard]] QColor accent() const { return accentColor(tone_); }
  [[nodiscard]] QString statusText() const;
  [[nodiscard]] QString subtitleText() const;
  [[nodiscard]] QStringList reasons() const { return reasons_; }
  [[nodiscard]] QStringList warnings() const { return warnings_; }
  [[nodiscard]] QStringList actions() const { return actions_; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  void changeEvent(QEvent* event) override;

 private:
  void setSections(const QStringList& reasons, const QStringList& warnings,
                   const QStringList& actions);
  void applyTone(VerdictTone tone);

  VerdictTone tone_ = VerdictTone::Incomplete;
  QLabel* title_ = nullptr;
  QLabel* subtitle_ = nullptr;
  QLabel* reasonsLabel_ = nullptr;
  QLabel* warningsLabel_ = nullptr;
  QLabel* actionsLabel_ = nullptr;
  QStringList reasons_;
  QStringList warnings_;
  QStringList actions_;
};

}  // namespace tb::ui
