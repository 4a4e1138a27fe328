// The Optimizations page's file viewer on files written here: its gutter of
// line numbers (wide enough for the largest number, drawn, and not hiding
// text), the band on the finding's line that stays while a second band
// follows the cursor, and files that cannot be shown.
#include <QDir>
#include <QFile>
#include <QImage>
#include <QScrollBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>

#include "tb/config/validation.hpp"
#include "ui/optimizations/file_viewer_dialog.h"
#include "ui/optimizations/line_numbered_view.h"
#include "ui_test_support.h"

using tb::ui::FileViewerDialog;
using tb::ui::LineNumberedView;

class OptimizationsFileViewerTest : public QObject {
  Q_OBJECT

 private:
  tb::ui::test::TestSandbox sandbox_;
  QTemporaryDir dir_;

  // A file of `lines` lines "KEY_<n>=value<n>".
  QString writeLines(const QString& name, int lines) {
    QFile file(dir_.filePath(name));
    if (!file.open(QIODevice::WriteOnly)) return {};
    for (int line = 1; line <= lines; ++line) {
      file.write(QStringLiteral("KEY_%1=value%1\n").arg(line).toUtf8());
    }
    return file.fileName();
  }

  static int nonBackgroundPixels(const QImage& image, QRgb background) {
    int count = 0;
    for (int y = 0; y < image.height(); ++y) {
      for (int x = 0; x < image.width() - 2; ++x) {  // the border line is not a digit
        if (image.pixel(x, y) != background) ++count;
      }
    }
    return count;
  }

  static LineNumberedView* editorOf(const FileViewerDialog& viewer) {
    return tb::ui::test::child<LineNumberedView>(&viewer, "fileViewerText");
  }
  static QWidget* gutterOf(const LineNumberedView* view) {
    return tb::ui::test::child<QWidget>(view, "lineNumberGutter");
  }

  // The lines (1-based) the view's extra selections paint, in order.
  static QList<int> bandLines(const LineNumberedView& view) {
    QList<int> lines;
    for (const QTextEdit::ExtraSelection& band : view.extraSelections()) {
      lines.append(band.cursor.blockNumber() + 1);
    }
    return lines;
  }

 private Q_SLOTS:
  void gutterIsAsWideAsTheLargestLineNumber() {
    FileViewerDialog viewer;
    viewer.show();
    viewer.showFile(writeLines(QStringLiteral("short.env"), 5), 3, tb::config::FileKind::EnvFile);
    LineNumberedView* view = editorOf(viewer);
    const int digit = view->fontMetrics().horizontalAdvance(QLatin1Char('9'));
    const int shortWidth = view->gutterWidth();
    QVERIFY(shortWidth >= 2 * digit);
    QVERIFY(gutterOf(view)->isVisible());
    QCOMPARE(gutterOf(view)->width(), shortWidth);
    // The text starts right of the gutter, so no number covers a character.
    QVERIFY(view->viewport()->geometry().left() >= gutterOf(view)->geometry().right());

    viewer.showFile(writeLines(QStringLiteral("long.env"), 12345), 12000,
                    tb::config::FileKind::EnvFile);
    QCOMPARE(view->blockCount(), 12346);  // the last newline opens an empty line
    QVERIFY(view->gutterWidth() >= 5 * digit);
    QVERIFY(view->gutterWidth() > shortWidth);
    QCOMPARE(gutterOf(view)->width(), view->gutterWidth());
  }

  void gutterDrawsTheNumbersOfTheVisibleLines() {
    FileViewerDialog viewer;
    viewer.resize(600, 400);
    viewer.show();
    QVERIFY(QTest::qWaitForWindowExposed(&viewer));
    viewer.showFile(writeLines(QStringLiteral("drawn.env"), 400), 300,
                    tb::config::FileKind::EnvFile);
    LineNumberedView* view = editorOf(viewer);
    const QImage gutter = gutterOf(view)->grab().toImage();
    const QRgb background = view->palette().color(QPalette::AlternateBase).rgb();
    QVERIFY2(nonBackgroundPixels(gutter, background) > 50, "the gutter holds no drawn digits");

    // Scrolled to the finding: line 300 is on screen, line 1 is not.
    QVERIFY(view->verticalScrollBar()->value() > 0);
    const int topLine = view->cursorForPosition(QPoint(0, 0)).blockNumber() + 1;
    QVERIFY2(topLine > 1 && topLine <= 300, qPrintable(QString::number(topLine)));
  }

  void findingLineStaysMarkedWhileTheCursorMoves() {
    FileViewerDialog viewer;
    viewer.show();
    viewer.showFile(writeLines(QStringLiteral("bands.env"), 20), 6, tb::config::FileKind::EnvFile);
    LineNumberedView* view = editorOf(viewer);
    QCOMPARE(view->markedLine(), 6);
    QCOMPARE(view->currentLine(), 6);
    QCOMPARE(bandLines(*view), QList<int>{6});  // one band when both are the same line

    view->setTextCursor(QTextCursor(view->document()->findBlockByNumber(1)));
    QCOMPARE(view->currentLine(), 2);
    QCOMPARE(bandLines(*view), (QList<int>{2, 6}));
    QCOMPARE(viewer.highlightedLine(), 6);
    QCOMPARE(viewer.highlightedText(), QStringLiteral("KEY_6=value6"));

    QTest::keyClick(view, Qt::Key_Down);
    QCOMPARE(bandLines(*view), (QList<int>{3, 6}));
  }

  void aLinePastTheEndMarksNothing() {
    FileViewerDialog viewer;
    viewer.showFile(writeLines(QStringLiteral("past.env"), 4), 40, tb::config::FileKind::EnvFile);
    QCOMPARE(viewer.highlightedLine(), 0);
    QCOMPARE(editorOf(viewer)->markedLine(), 0);
    QCOMPARE(bandLines(*editorOf(viewer)), QList<int>{1});  // only the cursor's line
  }

  void anUnreadableFileKeepsTheGutterAndSaysWhy() {
    FileViewerDialog viewer;
    viewer.show();
    viewer.showFile(dir_.filePath(QStringLiteral("missing/ds.json")), 3,
                    tb::config::FileKind::DeepSpeedJson);
    QCOMPARE(editorOf(viewer)->toPlainText(), QString());
    QCOMPARE(editorOf(viewer)->markedLine(), 0);
    QVERIFY(gutterOf(editorOf(viewer))->isVisible());
    QVERIFY(viewer.windowTitle().contains(QStringLiteral("ds.json")));
  }
};

TB_UI_TEST_MAIN(OptimizationsFileViewerTest)
#include "optimizations_file_viewer_test.moc"
