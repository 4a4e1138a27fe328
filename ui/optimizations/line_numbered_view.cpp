// Colours come from the palette at paint time, so the gutter and the bands
// follow a light or dark theme switch without being rebuilt. The two bands
// are extra selections, not a text format, so the highlighter's colours
// under them are kept.
#include "ui/optimizations/line_numbered_view.h"

#include <QEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QTextBlock>

#include <algorithm>

namespace tb::ui {

/// The strip left of the text; it only forwards painting to its view.
class LineNumberGutter : public QWidget {
 public:
  explicit LineNumberGutter(LineNumberedView* view) : QWidget(view), view_(view) {
    setObjectName(QStringLiteral("lineNumberGutter"));
  }

  [[nodiscard]] QSize sizeHint() const override { return {view_->gutterWidth(), 0}; }

 protected:
  void paintEvent(QPaintEvent* event) override { view_->paintGutter(event); }

 private:
  LineNumberedView* view_;
};

namespace {

constexpr int kGutterPadding = 6;

}  // namespace

LineNumberedView::LineNumberedView(QWidget* parent)
    : QPlainTextEdit(parent), gutter_(new LineNumberGutter(this)) {
  connect(this, &QPlainTextEdit::blockCountChanged, this, [this] { updateGutterWidth(); });
  connect(this, &QPlainTextEdit::updateRequest, this, &LineNumberedView::scrollGutter);
  connect(this, &QPlainTextEdit::cursorPositionChanged, this, &LineNumberedView::refreshBands);
  updateGutterWidth();
  refreshBands();
}

int LineNumberedView::gutterWidth() const {
  int digits = 1;
  for (int count = std::max(1, blockCount()); count >= 10; count /= 10) ++digits;
  // At least two digits, so a file growing past nine lines does not shift the text.
  digits = std::max(digits, 2);
  return 2 * kGutterPadding + fontMetrics().horizontalAdvance(QLatin1Char('9')) * digits;
}

int LineNumberedView::currentLine() const { return textCursor().blockNumber() + 1; }

void LineNumberedView::setMarkedLine(int line) {
  markedLine_ = line > 0 && line <= blockCount() ? line : 0;
  refreshBands();
}

void LineNumberedView::resizeEvent(QResizeEvent* event) {
  QPlainTextEdit::resizeEvent(event);
  const QRect area = contentsRect();
  gutter_->setGeometry(QRect(area.left(), area.top(), gutterWidth(), area.height()));
}

void LineNumberedView::changeEvent(QEvent* event) {
  QPlainTextEdit::changeEvent(event);
  if (event->type() == QEvent::FontChange) updateGutterWidth();
  if (event->type() == QEvent::PaletteChange) refreshBands();
}

void LineNumberedView::updateGutterWidth() {
  setViewportMargins(gutterWidth(), 0, 0, 0);
  const QRect area = contentsRect();
  gutter_->setGeometry(QRect(area.left(), area.top(), gutterWidth(), area.height()));
  if (markedLine_ > blockCount()) markedLine_ = 0;
}

void LineNumberedView::scrollGutter(const QRect& rect, int dy) {
  if (dy != 0) {
    gutter_->scroll(0, dy);
  } else {
    gutter_->update(0, rect.y(), gutter_->width(), rect.height());
  }
}

void LineNumberedView::refreshBands() {
  QList<QTextEdit::ExtraSelection> bands;
  const auto band = [this](int line, int alpha) {
    QTextEdit::ExtraSelection selection;
    QColor colour = palette().color(QPalette::Highlight);
    colour.setAlpha(alpha);
    selection.format.setBackground(colour);
    selection.format.setProperty(QTextFormat::FullWidthSelection, true);
    selection.cursor = QTextCursor(document()->findBlockByNumber(line - 1));
    return selection;
  };
  if (currentLine() != markedLine_) bands.append(band(currentLine(), 28));
  if (markedLine_ > 0) bands.append(band(markedLine_, 80));
  setExtraSelections(bands);
  gutter_->update();  // the current line's number is drawn stronger
}

void LineNumberedView::paintGutter(QPaintEvent* event) {
  QPainter painter(gutter_);
  const QPalette& colours = palette();
  painter.fillRect(event->rect(), colours.color(QPalette::AlternateBase));
  painter.setPen(colours.color(QPalette::Mid));
  painter.drawLine(gutter_->width() - 1, event->rect().top(), gutter_->width() - 1,
                   event->rect().bottom());
  QTextBlock block = firstVisibleBlock();
  int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
  const int lineHeight = fontMetrics().height();
  const QColor plain = colours.color(QPalette::PlaceholderText);
  const QColor strong = colours.color(QPalette::Text);
  QFont bold = font();
  bold.setBold(true);
  while (block.isValid() && top <= event->rect().bottom()) {
    const int height = qRound(blockBoundingRect(block).height());
    if (block.isVisible() && top + height >= event->rect().top()) {
      const int line = block.blockNumber() + 1;
      const bool emphasised = line == markedLine_ || line == currentLine();
      painter.setFont(line == markedLine_ ? bold : font());
      painter.setPen(emphasised ? strong : plain);
      painter.drawText(0, top, gutter_->width() - kGutterPadding, lineHeight, Qt::AlignRight,
                       QString::number(line));
    }
    block = block.next();
    top += height;
  }
}

}  // namespace tb::ui
