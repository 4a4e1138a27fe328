// A one-line label that elides in the middle, so long image references keep
// both their registry and their tag visible in a narrow column. The full text
// is in the tooltip and on the clipboard via a copy button next to it.
#pragma once

#include <QString>
#include <QWidget>

namespace tb::ui {

/// Single-line text, elided in the middle when it does not fit.
class ElidedLabel : public QWidget {
  Q_OBJECT

 public:
  explicit ElidedLabel(QWidget* parent = nullptr);

  void setText(const QString& text);
  [[nodiscard]] QString text() const { return text_; }

  [[nodiscard]] QSize sizeHint() const override;
  [[nodiscard]] QSize minimumSizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  QString text_;
};

}  // namespace tb::ui
