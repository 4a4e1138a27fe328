// Lines are split off before any is emitted: a receiver may spin the event
// loop (a dialog) and so re-enter the reading of the same buffer.
//
// QProcess reports a failed start with errorOccurred() and no finished(),
// every other end with finished(); both lead to finish(), which reports once.
#include "ui/widgets/child_process.h"

#include <QList>
#include <QTimer>

#include <algorithm>
#include <utility>

namespace tb::ui {
namespace {

// How long the destructor waits for a killed child to be reaped.
constexpr int kReapMs = 2000;

// What a cut line ends with, so that a reader sees it was cut.
constexpr char kCutMark[] = " [line cut at 1 MiB]";

QByteArray cut(const QByteArray& line) {
  return line.size() > kMaxChildLineBytes ? line.left(kMaxChildLineBytes) + kCutMark : line;
}

// Adds `chunk` and takes the complete lines off the front of the buffer. A
// lone '\r' ends a line too, as a progress bar redraws with it; one at the
// very end waits for the next piece, which may start with the '\n' of a
// "\r\n". No line is longer than kMaxChildLineBytes: a longer one is cut, and
// what is left of it dropped up to its end, so an endless line costs at most
// that much memory and each byte is scanned a bounded number of times.
QList<QByteArray> takeLines(ChildLineBuffer& buffer, const QByteArray& chunk, bool atEnd) {
  QList<QByteArray> lines;
  qsizetype from = 0;
  if (buffer.skipping) {
    const qsizetype newline = chunk.indexOf('\n');
    const qsizetype carriage = chunk.indexOf('\r');
    qsizetype end = newline < 0 ? carriage : carriage < 0 ? newline : std::min(newline, carriage);
    if (end < 0) return lines;
    if (chunk.at(end) == '\r' && end + 1 < chunk.size() && chunk.at(end + 1) == '\n') ++end;
    buffer.skipping = false;
    from = end + 1;
  }
  QByteArray& bytes = buffer.bytes;
  bytes.append(chunk.constData() + from, chunk.size() - from);
  qsizetype begin = 0;
  const qsizetype size = bytes.size();
  for (qsizetype at = 0; at < size; ++at) {
    const char c = bytes.at(at);
    if (c != '\n' && c != '\r') continue;
    if (c == '\r' && at + 1 == size && !atEnd) break;
    lines.append(cut(bytes.mid(begin, at - begin)));
    if (c == '\r' && at + 1 < size && bytes.at(at + 1) == '\n') ++at;
    begin = at + 1;
  }
  bytes.remove(0, begin);
  if (atEnd && !bytes.isEmpty()) {
    lines.append(cut(bytes));
    bytes.clear();
  } else if (bytes.size() > kMaxChildLineBytes) {
    lines.append(cut(bytes));
    bytes.clear();
    buffer.skipping = true;
  }
  return lines;
}

}  // namespace

ChildProcess::ChildProcess(QObject* parent)
    : QObject(parent), process_(new QProcess(this)), killTimer_(new QTimer(this)) {
  killTimer_->setSingleShot(true);
  connect(killTimer_, &QTimer::timeout, this, [this] {
    killed_ = true;
    process_->kill();
  });
  connect(process_, &QProcess::readyReadStandardOutput, this, [this] { readStdout(false); });
  connect(process_, &QProcess::readyReadStandardError, this, [this] { readStderr(false); });
  connect(process_, &QProcess::finished, this, &ChildProcess::onFinished);
  connect(process_, &QProcess::errorOccurred, this, &ChildProcess::onError);
}

ChildProcess::~ChildProcess() {
  if (process_->state() == QProcess::NotRunning) return;
  // The owner is being torn down as well: nothing may reach it any more.
  process_->disconnect(this);
  killTimer_->stop();
  if (shutdownGrace_.count() > 0) {
    process_->terminate();
    if (process_->waitForFinished(static_cast<int>(shutdownGrace_.count()))) return;
  }
  process_->kill();
  process_->waitForFinished(kReapMs);
}

bool ChildProcess::start(const QString& program, const QStringList& arguments) {
  if (isRunning()) return false;
  stdoutBuffer_ = {};
  stderrBuffer_ = {};
  stderrTail_.clear();
  stopRequested_ = false;
  killed_ = false;
  reported_ = false;
  process_->start(program, arguments);
  return true;
}

void ChildProcess::stop() {
  if (!isRunning()) return;
  stopRequested_ = true;
  process_->terminate();
  // A second stop() must not push the SIGKILL further away.
  if (!killTimer_->isActive()) killTimer_->start(stopGrace_);
}

bool ChildProcess::isRunning() const { return process_->state() != QProcess::NotRunning; }

qint64 ChildProcess::processId() const { return process_->processId(); }

QString ChildProcess::program() const { return process_->program(); }

void ChildProcess::setStderrTailLines(int lines) {
  stderrTailLines_ = std::max(1, lines);
  while (stderrTail_.size() > stderrTailLines_) stderrTail_.removeFirst();
}

QString ChildProcess::stderrTail() const { return stderrTail_.join(QLatin1Char('\n')); }

void ChildProcess::readStdout(bool atEnd) {
  const QByteArray chunk = process_->readAllStandardOutput();
  for (const QByteArray& line : takeLines(stdoutBuffer_, chunk, atEnd)) Q_EMIT stdoutLine(line);
}

void ChildProcess::readStderr(bool atEnd) {
  const QByteArray chunk = process_->readAllStandardError();
  for (const QByteArray& line : takeLines(stderrBuffer_, chunk, atEnd)) {
    // Blank lines say nothing about why a child failed; they would only
    // push the lines that do out of the tail.
    if (!line.trimmed().isEmpty()) {
      stderrTail_.append(QString::fromUtf8(line));
      if (stderrTail_.size() > stderrTailLines_) stderrTail_.removeFirst();
    }
    Q_EMIT stderrLine(line);
  }
}

void ChildProcess::onFinished(int exitCode, QProcess::ExitStatus status) {
  killTimer_->stop();
  // What was still in the pipes when the child ended, a last line without
  // its terminator included, comes before the end.
  readStdout(true);
  readStderr(true);
  ChildExit ended;
  ended.exitCode = exitCode;
  ended.crashed = status == QProcess::CrashExit;
  if (ended.crashed) ended.errorString = process_->errorString();
  finish(std::move(ended));
}

void ChildProcess::onError(QProcess::ProcessError error) {
  // Every other error is followed by finished(); a failed start is not.
  if (error != QProcess::FailedToStart) return;
  killTimer_->stop();
  ChildExit ended;
  ended.failedToStart = true;
  ended.errorString = process_->errorString();
  finish(std::move(ended));
}

void ChildProcess::finish(ChildExit ended) {
  if (reported_) return;
  reported_ = true;
  ended.stopRequested = stopRequested_;
  ended.killed = killed_;
  ended.stderrTail = stderrTail();
  Q_EMIT finished(ended);
}

}  // namespace tb::ui
