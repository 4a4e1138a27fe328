// Each round polls every log once, prints what grew, rewrites --out when
// anything grew, and sleeps the interval in short slices so that a signal
// ends it at once. What goes to stdout is the updates (one JSON object per
// line with --json, for a pipe); what stops a file from being read this
// round goes there too, once per new message, as an event of that file.
#include "import_follow.hpp"

#include <csignal>
#include <ctime>
#include <optional>
#include <thread>

#include "import_output.hpp"
#include "tb/common/stop_signals.hpp"
#include "tb/logs/log_follow.hpp"

namespace tb::cli {
namespace {

constexpr std::chrono::milliseconds kSleepSlice{50};

struct Source {
  logs::LogFollower follower;
  std::string label;
  std::string lastNotice;  ///< the last problem said, so it is said once
};

std::string clockTime() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char text[16];
  std::strftime(text, sizeof text, "%H:%M:%S", &local);
  return text;
}

std::string updateLine(const Source& source) {
  const logs::ImportedLog& log = *source.follower.latest();
  const runs::ImportedRun& run = log.run;
  const logs::ImportMedians& m = log.medians;
  std::string line = clockTime() + "  " + source.label + "  " + run.source + ": step " +
                     (run.lastStep ? std::to_string(*run.lastStep) : std::string("-")) + ", " +
                     std::to_string(run.records) + " records, step " +
                     orDash(m.stepTimeSeconds, 3) + " s, " + orDash(m.tokensPerSecondPerGpu) +
                     " tokens/s/gpu, loss " + orDash(lastLoss(run), 4);
  if (source.follower.ended()) line += " (ended)";
  return line;
}

void printUpdate(const CommandContext& context, const Source& source, bool json) {
  if (!json) {
    context.out() << updateLine(source) << '\n' << std::flush;
    return;
  }
  Json event = importToJson(*source.follower.latest(), source.label);
  event["event"] = "update";
  event["ended"] = source.follower.ended();
  context.out() << event.dump() << '\n' << std::flush;
}

void printNotice(const CommandContext& context, Source& source, const std::string& kind,
                 const std::string& message, bool json) {
  if (kind == "problem" && message == source.lastNotice) return;
  source.lastNotice = kind == "problem" ? message : std::string();
  if (json) {
    context.out() << Json{{"event", kind},
                          {"file", source.follower.path().string()},
                          {"label", source.label},
                          {"message", message}}
                         .dump()
                  << '\n'
                  << std::flush;
  } else {
    context.out() << clockTime() << "  " << source.label << "  " << message << '\n' << std::flush;
  }
}

// The cluster file of the sources that have records; a file the cluster
// reader refuses yet (no throughput so far) is said, and tried again.
void writeOut(const CommandContext& context, std::vector<Source>& sources,
              const FollowRequest& request) {
  std::vector<logs::ImportedLog> imports;
  std::vector<std::string> labels;
  for (const Source& source : sources) {
    if (!source.follower.latest()) continue;
    imports.push_back(*source.follower.latest());
    labels.push_back(source.label);
  }
  if (imports.empty()) return;
  if (Status written = writeClusterFile(imports, labels, request.model, request.out); !written)
    printNotice(context, sources.front(), "problem", written.error().message, request.json);
}

// One poll of every source; an Error ends the follow.
Expected<bool> pollAll(const CommandContext& context, std::vector<Source>& sources, bool json) {
  bool grew = false;
  for (Source& source : sources) {
    auto update = source.follower.poll();
    if (!update) return std::move(update).error();
    if (update->restarted) printNotice(context, source, "restarted", *update->restarted, json);
    if (update->problem) printNotice(context, source, "problem", *update->problem, json);
    if (!update->grew) continue;
    source.lastNotice.clear();
    printUpdate(context, source, json);
    grew = true;
  }
  return grew;
}

bool allEnded(const std::vector<Source>& sources) {
  for (const Source& source : sources)
    if (!source.follower.ended()) return false;
  return true;
}

void sleepUnlessStopped(std::chrono::milliseconds interval, const StopSignalGuard& stop) {
  for (auto slept = std::chrono::milliseconds(0); slept < interval && !stop.stopRequested();
       slept += kSleepSlice)
    std::this_thread::sleep_for(std::min(kSleepSlice, interval - slept));
}

}  // namespace

int followImports(const CommandContext& context, const FollowRequest& request) {
  std::vector<Source> sources;
  for (std::size_t i = 0; i < request.paths.size(); ++i) {
    auto follower = logs::LogFollower::open(request.paths[i], request.options);
    if (!follower) return context.fail(follower.error());
    sources.push_back(Source{std::move(*follower), request.labels[i], {}});
  }
  const StopSignalGuard stop;
  while (!stop.stopRequested()) {
    auto grew = pollAll(context, sources, request.json);
    if (!grew) return context.fail(grew.error());
    if (*grew && !request.out.empty()) writeOut(context, sources, request);
    if (allEnded(sources)) break;
    sleepUnlessStopped(request.interval, stop);
  }
  const std::string why = stop.stopRequested()
                              ? (stop.signalNumber() == SIGTERM ? "SIGTERM" : "SIGINT")
                              : "every run ended";
  if (request.json) context.out() << Json{{"event", "end"}, {"reason", why}}.dump() << '\n';
  else context.out() << clockTime() << "  following ended: " << why << '\n';
  return 0;
}

}  // namespace tb::cli
