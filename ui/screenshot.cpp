// Waiting is event-driven (the window's settled() signal, then a zero-timer
// so pending layout and paint events run first); nothing spins the event
// loop with processEvents(). A generous deadline turns a hung detector into
// an error instead of a process that never exits.
#include "ui/screenshot.h"

#include <QBuffer>
#include <QPixmap>
#include <QSaveFile>
#include <QTimer>
#include <QWidget>

#include <utility>

#include "ui/main_window.h"

namespace tb::ui {

namespace {

constexpr int kSettleDeadlineMs = 60000;

tb::Error screenshotError(const QString& path, const QString& reason) {
  return tb::makeError(
      tb::ErrorKind::Io,
      QStringLiteral("cannot write screenshot '%1': %2").arg(path, reason).toStdString());
}

}  // namespace

tb::Status saveWidgetPng(QWidget& widget, const QString& path) {
  const QPixmap pixmap = widget.grab();
  if (pixmap.isNull()) return screenshotError(path, QStringLiteral("the window rendered empty"));

  QByteArray png;
  QBuffer buffer(&png);
  buffer.open(QIODevice::WriteOnly);
  if (!pixmap.save(&buffer, "PNG")) {
    return screenshotError(path, QStringLiteral("PNG encoding failed"));
  }

  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) return screenshotError(path, file.errorString());
  if (file.write(png) != png.size()) return screenshotError(path, file.errorString());
  if (!file.commit()) return screenshotError(path, file.errorString());
  return {};
}

namespace {

// One pending screenshot. A child of the window, so it cannot outlive it;
// it deletes itself once `done` has run.
class ScreenshotJob final : public QObject {
 public:
  ScreenshotJob(MainWindow& window, QString path, std::function<void(const tb::Status&)> done)
      : QObject(&window), window_(window), path_(std::move(path)), done_(std::move(done)) {
    deadline_.setSingleShot(true);
    connect(&deadline_, &QTimer::timeout, this, [this] {
      finish(screenshotError(
          path_,
          QStringLiteral("the window was still busy after %1 s").arg(kSettleDeadlineMs / 1000)));
    });
  }

  void start() {
    deadline_.start(kSettleDeadlineMs);
    if (window_.isBusy()) {
      connect(&window_, &MainWindow::settled, this, &ScreenshotJob::shootSoon);
    } else {
      shootSoon();
    }
  }

 private:
  // A zero-timer lets queued layout and paint events run before the grab.
  void shootSoon() {
    QTimer::singleShot(0, this, [this] { finish(saveWidgetPng(window_, path_)); });
  }

  void finish(const tb::Status& status) {
    if (finished_) return;
    finished_ = true;
    deadline_.stop();
    disconnect(&window_, nullptr, this, nullptr);
    done_(status);
    deleteLater();
  }

  MainWindow& window_;
  QString path_;
  std::function<void(const tb::Status&)> done_;
  QTimer deadline_;
  bool finished_ = false;
};

}  // namespace

void saveScreenshotWhenSettled(MainWindow& window, const QString& path,
                               std::function<void(const tb::Status&)> done) {
  window.resize(MainWindow::kDefaultSize);
  if (!window.isVisible()) {
    // Laid out and painted like a shown window, without mapping one on a
    // real display when there is one.
    window.setAttribute(Qt::WA_DontShowOnScreen);
    window.show();
  }
  auto* job = new ScreenshotJob(window, path, std::move(done));
  job->start();
}

}  // namespace tb::ui
