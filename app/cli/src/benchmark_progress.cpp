// The bar is redrawn with a carriage return and an erase-to-end-of-line
// escape, so a shorter line never leaves the tail of a longer one behind.
#include "benchmark_progress.hpp"

#include <cstdio>
#include <ostream>
#include <string>

#include "tb/common/units.hpp"

namespace tb::cli {
namespace {

std::string position(const runs::BenchmarkRunRef& run) {
  return "[" + std::to_string(run.index + 1) + "/" + std::to_string(run.total) + "] ";
}

std::string bar(std::int64_t done, std::int64_t total, int width) {
  const std::int64_t filled = total > 0 ? done * width / total : 0;
  std::string text(static_cast<std::size_t>(width), '.');
  for (std::int64_t i = 0; i < filled && i < width; ++i) text[static_cast<std::size_t>(i)] = '#';
  return "[" + text + "]";
}

}  // namespace

void BenchmarkProgress::onEvent(const runs::BenchmarkEvent& event) {
  switch (event.kind) {
    case runs::BenchmarkEventKind::RunStart:
    case runs::BenchmarkEventKind::RunStep: drawBar(event); break;
    case runs::BenchmarkEventKind::RunEnd: printEnd(event); break;
    case runs::BenchmarkEventKind::Plan:
    case runs::BenchmarkEventKind::Summary:
    case runs::BenchmarkEventKind::Other: break;
  }
}

void BenchmarkProgress::drawBar(const runs::BenchmarkEvent& event) {
  if (!live_) return;
  err_ << "\r\x1b[K" << position(event.run) << event.run.label << " repeat " << event.run.repeat + 1
       << " step " << event.step << "/" << event.steps << " " << bar(event.step, event.steps, 20)
       << std::flush;
  barShown_ = true;
}

void BenchmarkProgress::printEnd(const runs::BenchmarkEvent& event) {
  clear();
  const runs::BenchmarkRunEnd& end = event.end;
  err_ << position(event.run) << event.run.label << " repeat " << event.run.repeat + 1 << ": "
       << (end.state == runs::RunState::Completed ? "ok" : runs::toString(end.state));
  if (end.state == runs::RunState::Completed) {
    char numbers[160];
    std::snprintf(numbers, sizeof(numbers), "%.0f tokens/s, step %.4f s, peak %s, %.1f s",
                  end.tokensPerSecond, end.stepTimeSeconds, formatBytes(end.peakBytes).c_str(),
                  end.wallSeconds);
    err_ << ", " << numbers;
  } else if (!end.message.empty()) {
    err_ << ": " << end.message;
  }
  err_ << '\n' << std::flush;
}

void BenchmarkProgress::clear() {
  if (!barShown_) return;
  err_ << "\r\x1b[K" << std::flush;
  barShown_ = false;
}

}  // namespace tb::cli
