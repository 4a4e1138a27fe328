// The bar is redrawn with a carriage return and an erase-to-end-of-line
// escape, so a shorter line never leaves the tail of a longer one behind.
#include "benchmark_progress.hpp"

#include <cstdio>
#include <ostream>
#include <string>

namespace tb::cli {
namespace {

std::string position(std::size_t index, std::size_t total) {
  return "[" + std::to_string(index + 1) + "/" + std::to_string(total) + "] ";
}

std::string bar(std::int64_t done, std::int64_t total, int width) {
  const std::int64_t filled = total > 0 ? done * width / total : 0;
  std::string text(static_cast<std::size_t>(width), '.');
  for (std::int64_t i = 0; i < filled && i < width; ++i) text[static_cast<std::size_t>(i)] = '#';
  return "[" + text + "]";
}

}  // namespace

void BenchmarkProgress::onProgress(const bench::AblationProgress& progress) {
  if (!live_) return;
  err_ << "\r\x1b[K" << position(progress.index, progress.total)
       << bench::label(progress.run.step) << " repeat " << progress.run.repeat + 1 << " step "
       << progress.stepsDone << "/" << progress.steps << " "
       << bar(progress.stepsDone, progress.steps, 20) << std::flush;
  barShown_ = true;
}

void BenchmarkProgress::onFinished(const bench::FinishedRun& finished) {
  clear();
  const bench::RunMeasurement& run = finished.measurement;
  char numbers[160];
  std::snprintf(numbers, sizeof(numbers), "%.0f tokens/s, step %.4f s, peak %.1f MiB, %.1f s",
                run.tokensPerS, run.stepTimeS, static_cast<double>(run.peakBytes) / 1048576.0,
                finished.wallSeconds);
  err_ << position(finished.index, finished.total) << bench::label(finished.run.step)
       << " repeat " << finished.run.repeat + 1 << ": " << run.status;
  if (run.status == "ok") err_ << ", " << numbers;
  else if (!finished.message.empty()) err_ << ": " << finished.message;
  err_ << '\n' << std::flush;
}

void BenchmarkProgress::clear() {
  if (!barShown_) return;
  err_ << "\r\x1b[K" << std::flush;
  barShown_ = false;
}

}  // namespace tb::cli
