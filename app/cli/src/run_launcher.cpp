// The workers speak the run event protocol on stdout (`--events -`), so the
// launcher knows each rank's run directory and summary without reading files
// another node may hold, and forwards rank 0's events with each local rank's
// steps as `rank_step` events; their stderr reaches ours a line at a time, tagged
// with the rank. The whole run's summary is rank 0's (global tokens/s and
// loss) with every local rank's outcome, and the first failure decides the
// status: torchrun's "root cause".
#include "run_launcher.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <vector>

#include "event_output.hpp"
#include "exit_codes.hpp"
#include "output.hpp"
#include "run_summary_text.hpp"
#include "tb/common/host_cores.hpp"
#include "tb/common/stop_signals.hpp"
#include "tb/common/subprocess.hpp"
#include "tb/engine/launch_env.hpp"
#include "tb/engine/rendezvous_store.hpp"
#include "tb/runs/run_directory.hpp"
#include "tb/runs/run_event.hpp"

namespace tb::cli {
namespace {

constexpr int kMaxPort = 65535;
constexpr int kSignalExitBase = 128;

Error badLaunch(const std::string& message) { return makeError(ErrorKind::BadInput, message); }

/// Launcher options and the outputs the launcher produces itself.
constexpr std::array<const char*, 5> kLauncherOptions{"--nproc-per-node", "--nnodes", "--node-rank",
                                                      "--master-addr", "--master-port"};

bool takesValueAndIsStripped(const std::string& name) {
  return name == "--events" || std::find(kLauncherOptions.begin(), kLauncherOptions.end(), name) !=
                                   kLauncherOptions.end();
}

/// The user's command line for a worker: without the launcher's options,
/// --json or --events (the launcher prints and forwards those), with
/// `--events -` so that the worker reports to the launcher.
std::vector<std::string> workerArguments(const std::vector<std::string>& given) {
  std::vector<std::string> kept;
  for (std::size_t i = 0; i < given.size(); ++i) {
    const std::string& argument = given[i];
    const std::string name = argument.substr(0, argument.find('='));
    if (argument == "--json") continue;
    if (takesValueAndIsStripped(name)) {
      if (name == argument) ++i;  // "--name VALUE": skip the value too
      continue;
    }
    kept.push_back(argument);
  }
  kept.emplace_back("--events");
  kept.emplace_back("-");
  return kept;
}

Status checkLaunch(const LaunchOptions& launch, const LaunchOutput& output) {
  if (launch.nprocPerNode < 1) {
    return badLaunch("--nproc-per-node " + std::to_string(launch.nprocPerNode) +
                     ": at least 1 worker per node");
  }
  if (launch.nnodes < 1)
    return badLaunch("--nnodes " + std::to_string(launch.nnodes) + ": at least 1");
  if (launch.nodeRank < 0 || launch.nodeRank >= launch.nnodes) {
    return badLaunch("--node-rank " + std::to_string(launch.nodeRank) + ": must be 0 to " +
                     std::to_string(launch.nnodes - 1) + " for --nnodes " +
                     std::to_string(launch.nnodes));
  }
  if (launch.masterPort < 0 || launch.masterPort > kMaxPort) {
    return badLaunch("--master-port " + std::to_string(launch.masterPort) +
                     ": not a port (0..65535)");
  }
  if (launch.masterPort == 0 && launch.nnodes > 1) {
    return badLaunch(
        "--master-port 0 (a free port) works on one node only: the other nodes "
        "must be told the port");
  }
  if (launch.masterAddr.empty()) return badLaunch("--master-addr is empty");
  const engine::EnvLookup environment = engine::processEnvironment();
  const auto interfaces = engine::hostInterfaces();
  if (auto gloo = engine::glooInterfaces(environment, interfaces); !gloo) return gloo.error();
  if (output.cuda) {
    if (Status nccl = engine::checkNcclInterfaces(environment, interfaces); !nccl) return nccl;
  }
  if (const auto launched = engine::launchEnvFrom(environment); launched && launched->has_value()) {
    return badLaunch("--nproc-per-node: this process is already rank " +
                     std::to_string((*launched)->rank) + " of a launched group (RANK is set)");
  }
  return {};
}

/// What the launcher learns of one worker from its events and its exit.
struct Worker {
  int rank = 0;
  std::optional<runs::RunSummary> summary;  ///< from its `end` event
  std::string runDir;                       ///< from its `start` event
  std::string lastError;                    ///< its last stderr line, for a worker that died
  MemberExit exit;
};

std::string howItEnded(const Worker& worker) {
  if (worker.exit.signal != 0) {
    const char* name = ::sigabbrev_np(worker.exit.signal);
    return "killed by signal " + std::to_string(worker.exit.signal) +
           (name != nullptr ? std::string(" (SIG") + name + ")" : std::string());
  }
  return "exited with code " + std::to_string(worker.exit.exitCode);
}

/// The rank's outcome: its own summary if it wrote one, else how it ended.
runs::RankOutcome outcomeOf(const Worker& worker) {
  if (worker.summary) {
    return {.rank = worker.rank,
            .state = worker.summary->state,
            .peakBytes = worker.summary->peakBytes,
            .message = worker.summary->message};
  }
  std::string message = howItEnded(worker) + " before reporting a summary";
  if (!worker.lastError.empty()) message += ": " + worker.lastError;
  return {.rank = worker.rank, .state = runs::RunState::Failed, .peakBytes = 0, .message = message};
}

int exitCodeOf(const MemberExit& exit) {
  if (exit.signal != 0) return kSignalExitBase + exit.signal;
  return exit.exitCode > 0 ? exit.exitCode : kExitRuntimeFailure;
}

/// The run's summary: rank 0's figures (or the first local rank's, on
/// another node), every local rank's outcome, the first failure's status.
runs::RunSummary mergedSummary(const std::vector<Worker>& workers, int worldSize,
                               const std::optional<std::size_t>& firstFailure) {
  runs::RunSummary merged;
  if (workers.front().summary) merged = *workers.front().summary;
  merged.worldSize = worldSize;
  merged.rank = workers.front().rank;
  if (merged.runDir.empty()) merged.runDir = workers.front().runDir;
  merged.ranks.clear();
  merged.peakBytes = 0;
  for (const Worker& worker : workers) {
    merged.ranks.push_back(outcomeOf(worker));
    merged.peakBytes = std::max(merged.peakBytes, merged.ranks.back().peakBytes);
  }
  if (firstFailure) {
    const runs::RankOutcome& first = merged.ranks[*firstFailure];
    merged.state = first.state == runs::RunState::Completed ? runs::RunState::Failed : first.state;
    merged.message = "rank " + std::to_string(first.rank) + " failed first: " + first.message;
  } else if (!workers.front().summary) {
    merged.state = runs::RunState::Failed;
    merged.message = merged.ranks.front().message;
  }
  return merged;
}

/// The store node 0 hosts for as long as the group runs, and the port every
/// worker is told.
struct Rendezvous {
  std::optional<engine::RendezvousStore> store;
  int port = 0;
};

/// Node 0's launcher hosts the store, as torchrun's agent does.
Expected<Rendezvous> hostRendezvous(const LaunchOptions& launch, const LaunchOutput& output) {
  if (launch.nodeRank != 0) return Rendezvous{.store = std::nullopt, .port = launch.masterPort};
  const auto timeout =
      std::chrono::milliseconds(static_cast<std::int64_t>(output.distTimeoutSeconds * 1000.0));
  auto hosted =
      engine::RendezvousStore::host(static_cast<std::uint16_t>(launch.masterPort), timeout);
  if (!hosted) return hosted.error();
  // Read before the store moves out of `hosted`: a moved-from store has no port.
  const int port = hosted->port();
  return Rendezvous{.store = std::move(*hosted), .port = port};
}

/// The group to start: each worker's command line and environment, and what
/// the launcher learns of it, both in local-rank order.
struct WorkerGroup {
  int worldSize = 0;
  std::vector<GroupMember> members;
  std::vector<Worker> workers;
};

WorkerGroup workerGroup(const CommandContext& context, const LaunchOptions& launch,
                        const std::filesystem::path& binary, int port) {
  WorkerGroup group;
  group.worldSize = launch.nnodes * launch.nprocPerNode;
  // As torchrun does, a node's workers share its cores unless told
  // otherwise: LibTorch's and OpenBLAS's default pools would each take every
  // core in every worker (the stock runtime keeps those defaults).
  const bool threadsGiven = std::getenv("OMP_NUM_THREADS") != nullptr;
  const std::string threadsPerWorker =
      std::to_string(std::max(1, physicalCoreCount() / launch.nprocPerNode));
  const std::vector<std::string> arguments = workerArguments(context.arguments());
  for (int local = 0; local < launch.nprocPerNode; ++local) {
    engine::LaunchEnv env;
    env.rank = launch.nodeRank * launch.nprocPerNode + local;
    env.localRank = local;
    env.worldSize = group.worldSize;
    env.localWorldSize = launch.nprocPerNode;
    env.groupRank = launch.nodeRank;
    env.masterAddr = launch.masterAddr;
    env.masterPort = static_cast<std::uint16_t>(port);
    env.useAgentStore = true;
    env.restartCount = 0;
    GroupMember member;
    member.argv.push_back(binary.string());
    member.argv.insert(member.argv.end(), arguments.begin(), arguments.end());
    member.environment = engine::toEnvironment(env);
    if (!threadsGiven) member.environment["OMP_NUM_THREADS"] = threadsPerWorker;
    group.members.push_back(std::move(member));
    group.workers.push_back(
        {.rank = env.rank, .summary = std::nullopt, .runDir = "", .lastError = "", .exit = {}});
  }
  return group;
}

/// Runs the group until every worker has exited, following each worker's
/// event stream and passing its stderr on tagged with its rank; fills in how
/// each worker exited.
Expected<GroupOutcome> runWorkers(const CommandContext& context, const runs::EventSink& sink,
                                  WorkerGroup& group, const StopToken& stop) {
  std::vector<Worker>& workers = group.workers;
  const auto started = std::chrono::steady_clock::now();
  GroupOptions options;
  options.onStdoutLine = [&](std::size_t member, std::string_view line) {
    Worker& worker = workers[member];
    const auto event = runs::parseEventLine(line);
    if (!event) {
      context.err() << "[rank " << worker.rank << "] " << line << '\n';
      return;
    }
    if (event->kind == runs::EventKind::Start) worker.runDir = event->runDir;
    if (event->kind == runs::EventKind::End) worker.summary = event->summary;
    if (!sink) return;
    if (member == 0) sink(std::string(line));
    // Every local rank's own step (its memory is its own) beside rank 0's
    // stream, so a live reader such as the Studio's Runs page sees each rank.
    if (event->kind == runs::EventKind::Step) {
      const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - started;
      sink(runs::rankStepLine(worker.rank, event->sample, elapsed.count()));
    }
  };
  options.onStderrLine = [&](std::size_t member, std::string_view line) {
    Worker& worker = workers[member];
    if (!line.empty()) worker.lastError = std::string(line);
    context.err() << "[rank " << worker.rank << "] " << line << '\n' << std::flush;
  };
  auto outcome = runProcessGroup(group.members, options, stop);
  if (!outcome) return outcome;
  for (std::size_t i = 0; i < workers.size(); ++i) workers[i].exit = outcome->exits[i];
  return outcome;
}

/// The launcher's summary is the complete one: it also knows the ranks that
/// died without a word. Rewritten whole, like every summary; on node 0 only,
/// whose rank 0 owns the run directory.
void writeLaunchSummary(const CommandContext& context, const LaunchOptions& launch,
                        const runs::RunSummary& summary) {
  if (launch.nodeRank == 0 && !summary.runDir.empty()) {
    if (auto directory = runs::RunDirectory::create(summary.runDir, summary.model); directory) {
      if (Status written = directory->writeSummary(summary); !written) {
        context.err() << "trainbench: " << written.error().message << '\n';
      }
    }
  }
}

void printLaunchSummary(const CommandContext& context, const LaunchOutput& output,
                        const std::vector<Worker>& workers, const runs::RunSummary& summary) {
  if (output.json) {
    printJson(context.out(), runs::toJson(summary));
  } else if (output.events != "-" && workers.front().summary) {
    // Without rank 0's summary there are no figures to print, only the reason.
    printRunSummary(context.out(), summary);
  }
}

/// The first failing worker's code, with the failure on stderr; else the
/// run's own status.
int launchExitCode(const CommandContext& context, const std::vector<Worker>& workers,
                   const std::optional<std::size_t>& firstFailure,
                   const runs::RunSummary& summary) {
  if (firstFailure) {
    const Worker& first = workers[*firstFailure];
    context.err() << "trainbench: " << summary.message << '\n';
    return exitCodeOf(first.exit);
  }
  if (summary.state == runs::RunState::Completed) return kExitSuccess;
  context.err() << "trainbench: run " << runs::toString(summary.state) << ": " << summary.message
                << '\n';
  return kExitRuntimeFailure;
}

}  // namespace

int launchWorkers(const CommandContext& context, const LaunchOptions& launch,
                  const LaunchOutput& output) {
  if (Status valid = checkLaunch(launch, output); !valid) return context.fail(valid.error());
  auto binary = thisProgram();
  if (!binary) return context.fail(binary.error());
  // Held until the function returns: the store must outlive the group.
  auto rendezvous = hostRendezvous(launch, output);
  if (!rendezvous) return context.fail(rendezvous.error());

  std::shared_ptr<std::ofstream> eventsFile;
  auto sink = openEventSink(output.events, context.out(), eventsFile);
  if (!sink) {
    return context.fail(sink.error());
  }

  WorkerGroup group = workerGroup(context, launch, *binary, rendezvous->port);
  StopSignalGuard signals;
  auto outcome = runWorkers(context, *sink, group, signals.token());
  if (!outcome) return context.fail(outcome.error());

  const runs::RunSummary summary =
      mergedSummary(group.workers, group.worldSize, outcome->firstFailure);
  writeLaunchSummary(context, launch, summary);
  printLaunchSummary(context, output, group.workers, summary);
  return launchExitCode(context, group.workers, outcome->firstFailure, summary);
}

}  // namespace tb::cli
