// The child process both pages run `trainbench` through, driven by small
// /bin/sh children: lines that arrive in pieces (and a last one without a
// newline), the stderr tail, a stop that SIGTERM ends, a child that ignores
// SIGTERM and is killed after the grace, one finished() per start however it
// ends, a program that cannot start, and a destructor that leaves no child
// behind. Every wait is bounded, so a broken class fails here, never hangs.
#include <QByteArray>
#include <QElapsedTimer>
#include <QFile>
#include <QList>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <memory>
#include <vector>

#include <sys/types.h>

#include "ui/widgets/child_process.h"

using tb::ui::ChildExit;
using tb::ui::ChildProcess;
using namespace std::chrono_literals;

namespace {

constexpr int kWaitMs = 10'000;

const QString kShell = QStringLiteral("/bin/sh");

QStringList script(const char* text) { return {QStringLiteral("-c"), QString::fromUtf8(text)}; }

/// What a child reported, in order, and how many lines had come when it ended.
struct Recorder {
  QList<QByteArray> out;
  QList<QByteArray> err;
  std::vector<ChildExit> ends;
  qsizetype outLinesAtEnd = -1;

  explicit Recorder(ChildProcess& child) {
    QObject::connect(&child, &ChildProcess::stdoutLine, &child,
                     [this](const QByteArray& line) { out.append(line); });
    QObject::connect(&child, &ChildProcess::stderrLine, &child,
                     [this](const QByteArray& line) { err.append(line); });
    QObject::connect(&child, &ChildProcess::finished, &child, [this](const ChildExit& ended) {
      outLinesAtEnd = out.size();
      ends.push_back(ended);
    });
  }
};

}  // namespace

class ChildProcessTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void linesArriveInPiecesAndTheLastIsFlushed() {
    ChildProcess child;
    Recorder seen(child);
    QVERIFY(child.start(kShell, script("printf 'ab'; sleep 0.1; printf 'c\\nd'; sleep 0.1; "
                                       "printf 'e\\r\\nf\\rg\\n\\nh'")));
    QTRY_COMPARE_WITH_TIMEOUT(seen.ends.size(), std::size_t{1}, kWaitMs);
    // "\n", "\r\n" and a lone "\r" each end one line; a blank line is a line.
    const QList<QByteArray> expected = {"abc", "de", "f", "g", "", "h"};
    QCOMPARE(seen.out, expected);
    QCOMPARE(seen.outLinesAtEnd, expected.size());
    const ChildExit& ended = seen.ends.front();
    QVERIFY(!ended.failedToStart);
    QVERIFY(!ended.crashed);
    QCOMPARE(ended.exitCode, 0);
    QVERIFY(!child.isRunning());
  }

  void anEndlessLineIsCutAndTheRestDroppedToItsEnd() {
    // 64 MiB without a newline, then a normal line: the first arrives cut at
    // 1 MiB with the mark, the rest of it never reaches anyone, the next
    // line is whole. Memory stays near the cut (the buffer is cleared).
    ChildProcess child;
    Recorder seen(child);
    QVERIFY(child.start(kShell, script("head -c 67108864 /dev/zero | tr '\\0' x; "
                                       "echo; echo after")));
    QTRY_COMPARE_WITH_TIMEOUT(seen.ends.size(), std::size_t{1}, 60'000);
    QCOMPARE(seen.out.size(), qsizetype{2});
    QCOMPARE(seen.out.front().size(),
             tb::ui::kMaxChildLineBytes + qsizetype(sizeof(" [line cut at 1 MiB]") - 1));
    QVERIFY(seen.out.front().endsWith(" [line cut at 1 MiB]"));
    QCOMPARE(seen.out.back(), QByteArray("after"));
  }

  void stderrTailKeepsTheLastLinesWithText() {
    ChildProcess child;
    child.setStderrTailLines(3);
    Recorder seen(child);
    QVERIFY(child.start(kShell, script("for i in 1 2 3 4 5 6 7; do echo line$i >&2; done; "
                                       "echo >&2; echo out; exit 3")));
    QTRY_COMPARE_WITH_TIMEOUT(seen.ends.size(), std::size_t{1}, kWaitMs);
    QCOMPARE(seen.err.size(), qsizetype{8});  // the blank line is passed on, not kept
    const ChildExit& ended = seen.ends.front();
    QCOMPARE(ended.stderrTail, QStringLiteral("line5\nline6\nline7"));
    QCOMPARE(child.stderrTail(), ended.stderrTail);
    QCOMPARE(ended.exitCode, 3);
    QVERIFY(!ended.crashed);
    QVERIFY(!ended.stopRequested);
    QCOMPARE(seen.out, QList<QByteArray>{"out"});
  }

  void stopSendsSigtermFirst() {
    ChildProcess child;
    child.setStopGrace(10s);  // a SIGKILL would come far too late to pass
    Recorder seen(child);
    QVERIFY(child.start(kShell, script("trap 'echo bye; exit 7' TERM; echo ready; "
                                       "while :; do sleep 0.05; done")));
    QTRY_VERIFY_WITH_TIMEOUT(seen.out.contains("ready"), kWaitMs);
    QVERIFY(child.processId() > 0);
    child.stop();
    QTRY_COMPARE_WITH_TIMEOUT(seen.ends.size(), std::size_t{1}, kWaitMs);
    const ChildExit& ended = seen.ends.front();
    QVERIFY(ended.stopRequested);
    QVERIFY(!ended.killed);
    QVERIFY(!ended.crashed);
    QCOMPARE(ended.exitCode, 7);
    QVERIFY(seen.out.contains("bye"));
  }

  void childIgnoringSigtermIsKilledAfterTheGrace() {
    ChildProcess child;
    child.setStopGrace(200ms);
    Recorder seen(child);
    // exec keeps the ignored SIGTERM and makes the sleep the child itself.
    QVERIFY(child.start(kShell, script("trap '' TERM; echo ready; exec sleep 30")));
    QTRY_VERIFY_WITH_TIMEOUT(seen.out.contains("ready"), kWaitMs);
    QElapsedTimer clock;
    clock.start();
    child.stop();
    child.stop();  // a second stop does not delay the kill
    QTRY_COMPARE_WITH_TIMEOUT(seen.ends.size(), std::size_t{1}, kWaitMs);
    QVERIFY2(clock.elapsed() >= 150, qPrintable(QString::number(clock.elapsed())));
    const ChildExit& ended = seen.ends.front();
    QVERIFY(ended.stopRequested);
    QVERIFY(ended.killed);
    QVERIFY(ended.crashed);
    QVERIFY(!ended.errorString.isEmpty());
    QTest::qWait(300);
    QCOMPARE(seen.ends.size(), std::size_t{1});
  }

  void finishedOncePerStart() {
    ChildProcess child;
    Recorder seen(child);
    QVERIFY(child.start(kShell, script("sleep 0.2")));
    QVERIFY(!child.start(kShell, script("echo second")));  // refused while running
    QTRY_COMPARE_WITH_TIMEOUT(seen.ends.size(), std::size_t{1}, kWaitMs);
    QVERIFY(child.start(kShell, script("echo again")));
    QTRY_COMPARE_WITH_TIMEOUT(seen.ends.size(), std::size_t{2}, kWaitMs);
    QTest::qWait(200);
    QCOMPARE(seen.ends.size(), std::size_t{2});
    QCOMPARE(seen.out, QList<QByteArray>{"again"});
    QVERIFY(!seen.ends.back().stopRequested);
  }

  void failureToStartIsReportedOnce() {
    ChildProcess child;
    Recorder seen(child);
    QVERIFY(child.start(QStringLiteral("/nonexistent/trainbench-child"), {}));
    QTRY_COMPARE_WITH_TIMEOUT(seen.ends.size(), std::size_t{1}, kWaitMs);
    const ChildExit& ended = seen.ends.front();
    QVERIFY(ended.failedToStart);
    QVERIFY(!ended.errorString.isEmpty());
    QCOMPARE(ended.exitCode, -1);
    QVERIFY(!child.isRunning());
    QCOMPARE(child.processId(), qint64{0});
    QCOMPARE(child.program(), QStringLiteral("/nonexistent/trainbench-child"));
    QTest::qWait(200);
    QCOMPARE(seen.ends.size(), std::size_t{1});
  }

  void destructorLeavesNoChildBehind() {
    auto child = std::make_unique<ChildProcess>();
    bool reported = false;
    connect(child.get(), &ChildProcess::finished, this, [&reported] { reported = true; });
    QVERIFY(child->start(kShell, script("exec sleep 30")));
    QTRY_VERIFY_WITH_TIMEOUT(child->processId() > 0, kWaitMs);
    const auto pid = static_cast<pid_t>(child->processId());
    QElapsedTimer clock;
    clock.start();
    child.reset();
    QVERIFY2(clock.elapsed() < 5000, qPrintable(QString::number(clock.elapsed())));
    // Killed and reaped: the pid no longer names a process.
    QCOMPARE(::kill(pid, 0), -1);
    QCOMPARE(errno, ESRCH);
    QVERIFY(!reported);
  }

  void shutdownGraceLetsTheChildEndOnSigterm() {
    QTemporaryDir dir;
    const QString mark = dir.filePath(QStringLiteral("ended"));
    auto child = std::make_unique<ChildProcess>();
    child->setShutdownGrace(5s);
    Recorder seen(*child);
    const QByteArray body = "trap 'echo clean > " + mark.toUtf8() +
                            "; exit 0' TERM; echo ready; while :; do sleep 0.05; done";
    QVERIFY(child->start(kShell, script(body.constData())));
    QTRY_VERIFY_WITH_TIMEOUT(seen.out.contains("ready"), kWaitMs);
    child.reset();
    QVERIFY(QFile::exists(mark));
  }
};

QTEST_GUILESS_MAIN(ChildProcessTest)
#include "child_process_test.moc"
