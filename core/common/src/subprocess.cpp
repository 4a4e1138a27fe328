#include "tb/common/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <optional>
#include <system_error>
#include <thread>

#include "tb/common/stop_signals.hpp"

extern char** environ;

namespace tb {
namespace {

// Closes its descriptor on scope exit so that every early return is clean.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  [[nodiscard]] int get() const { return fd_; }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

bool makePipe(Fd& readEnd, Fd& writeEnd) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
  readEnd.reset(fds[0]);
  writeEnd.reset(fds[1]);
  return true;
}

std::vector<std::string> childEnvironment(const ProcessOptions& options) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    const std::string name = entry.substr(0, entry.find('='));
    bool drop = options.environment.count(name) > 0;
    for (const auto& unset : options.unsetEnvironment) drop = drop || unset == name;
    if (!drop) env.push_back(entry);
  }
  for (const auto& [name, value] : options.environment) env.push_back(name + "=" + value);
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// The one posix_spawn of the project. `search`: look argv[0] up on PATH.
Expected<pid_t> spawn(const std::vector<std::string>& argv, posix_spawn_file_actions_t& actions,
                      std::vector<std::string> env, bool search) {
  std::vector<std::string> args = argv;
  auto argPointers = pointers(args);
  auto envPointers = pointers(env);
  pid_t pid = 0;
  const int spawnError = search ? ::posix_spawnp(&pid, args[0].c_str(), &actions, nullptr,
                                                 argPointers.data(), envPointers.data())
                                : ::posix_spawn(&pid, args[0].c_str(), &actions, nullptr,
                                                argPointers.data(), envPointers.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawnError != 0) {
    return makeError(spawnError == ENOENT ? ErrorKind::NotFound : ErrorKind::Runtime,
                     "cannot run '" + argv[0] + "': " + std::strerror(spawnError));
  }
  return pid;
}

template <class Outcome>
void recordExit(int status, Outcome& outcome) {
  if (WIFEXITED(status)) outcome.exitCode = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
}

// A running process group: each member's pid, the read ends of its stdout
// and stderr pipes and the part of a line each has sent so far. Only our own
// waitpid reaps a member, so a pid we signal is never a recycled one.
class Group {
 public:
  Group(std::size_t size, const GroupOptions& options) : children_(size), options_(options) {}
  Group(const Group&) = delete;
  Group& operator=(const Group&) = delete;
  // Reached with members running only when a line callback threw: even then
  // no member is left behind.
  ~Group() {
    for (auto& child : children_) {
      if (!child.running) continue;
      ::kill(child.pid, SIGKILL);
      int status = 0;
      while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
      }
    }
  }

  Status start(std::size_t index, const GroupMember& member) {
    Child& child = children_[index];
    Fd outWrite, errWrite;
    if (!makePipe(child.pipes[0], outWrite) || !makePipe(child.pipes[1], errWrite)) {
      return makeError(ErrorKind::Io, std::string("cannot create pipes: ") + std::strerror(errno));
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, outWrite.get(), STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, errWrite.get(), STDERR_FILENO);
    ProcessOptions environment;
    environment.environment = member.environment;
    const Expected<pid_t> spawned =
        spawn(member.argv, actions, childEnvironment(environment), false);
    if (!spawned) {
      for (auto& pipe : child.pipes) pipe.reset();
      return spawned.error();
    }
    child.pid = *spawned;
    child.running = true;
    // outWrite and errWrite close on return: the member then holds the only
    // write ends, so its pipes reach end of file when it (and what it
    // started) is gone. Non-blocking, so that the last drain cannot hang.
    for (auto& pipe : child.pipes) ::fcntl(pipe.get(), F_SETFL, O_NONBLOCK);
    return {};
  }

  // kStopSignal, then SIGCONT so that a member stopped by SIGSTOP acts on it;
  // SIGKILL follows in killAfterGrace. Once only.
  void stopAll() {
    if (stopSentAt_) return;
    stopSentAt_ = std::chrono::steady_clock::now();
    for (auto& child : children_) {
      if (!child.running) continue;
      ::kill(child.pid, kStopSignal);
      ::kill(child.pid, SIGCONT);
    }
  }

  // Until every member has exited: reap, stop the group on the first failure
  // or on `stop`, read the pipes for at most a tick, which also bounds how
  // late an exit is seen while a grandchild holds the member's pipes open.
  void watch(const StopToken& stop, GroupOutcome& outcome) {
    while (reap(outcome)) {
      if (outcome.firstFailure) stopAll();
      if (!outcome.stopRequested && stop.stopRequested()) {
        outcome.stopRequested = true;
        stopAll();
      }
      killAfterGrace();
      pollOnce();
    }
    drain();
  }

 private:
  struct Child {
    pid_t pid = -1;
    bool running = false;
    std::array<Fd, 2> pipes;  // stdout, stderr
    std::array<std::string, 2> partial;
  };

  // Reaps the members that have exited; whether any is still running. Only
  // a failure seen before the group was stopped counts as its cause.
  bool reap(GroupOutcome& outcome) {
    bool anyRunning = false;
    for (std::size_t i = 0; i < children_.size(); ++i) {
      Child& child = children_[i];
      if (!child.running) continue;
      int status = 0;
      const pid_t done = ::waitpid(child.pid, &status, WNOHANG);
      if (done == 0 || (done < 0 && errno == EINTR)) {
        anyRunning = true;
        continue;
      }
      child.running = false;
      // done < 0 otherwise (ECHILD: reaped by someone else): how it ended is
      // unknown, and exitCode -1 counts as a failure.
      if (done == child.pid) recordExit(status, outcome.exits[i]);
      if (!stopSentAt_ && !outcome.firstFailure && outcome.exits[i].failed()) {
        outcome.firstFailure = i;
      }
    }
    return anyRunning;
  }

  void killAfterGrace() {
    if (!stopSentAt_ || killed_ ||
        std::chrono::steady_clock::now() - *stopSentAt_ < options_.stopGrace) {
      return;
    }
    killed_ = true;
    for (auto& child : children_) {
      if (child.running) ::kill(child.pid, SIGKILL);
    }
  }

  void pollOnce() {
    auto timeout = options_.tick;
    if (stopSentAt_ && !killed_) {
      const auto untilKill = std::chrono::ceil<std::chrono::milliseconds>(
          *stopSentAt_ + options_.stopGrace - std::chrono::steady_clock::now());
      timeout = std::clamp(untilKill, std::chrono::milliseconds(0), timeout);
    }
    std::vector<pollfd> fds;
    std::vector<std::pair<std::size_t, std::size_t>> which;  // member, stream
    for (std::size_t i = 0; i < children_.size(); ++i) {
      for (std::size_t stream = 0; stream < 2; ++stream) {
        const int fd = children_[i].pipes[stream].get();
        if (fd < 0) continue;
        fds.push_back({fd, POLLIN, 0});
        which.emplace_back(i, stream);
      }
    }
    const int ready =
        ::poll(fds.data(), static_cast<nfds_t>(fds.size()), static_cast<int>(timeout.count()));
    if (ready < 0 && errno != EINTR) std::this_thread::sleep_for(timeout);  // no spinning
    if (ready <= 0) return;
    for (std::size_t j = 0; j < fds.size(); ++j) {
      if ((fds[j].revents & (POLLIN | POLLHUP | POLLERR)) != 0)
        readOnce(which[j].first, which[j].second);
    }
  }

  // All members have exited: take what their pipes hold now and close them,
  // never waiting for a leftover grandchild that still holds a write end.
  // Bounded, as such a grandchild may also keep writing.
  void drain() {
    constexpr int kDrainReads = 64;
    for (std::size_t i = 0; i < children_.size(); ++i) {
      for (std::size_t stream = 0; stream < 2; ++stream) {
        if (children_[i].pipes[stream].get() < 0) continue;
        for (int reads = 0; reads < kDrainReads && readOnce(i, stream); ++reads) {
        }
        if (children_[i].pipes[stream].get() >= 0) close(i, stream);
      }
    }
  }

  // One read; true when it got data (there may be more now).
  bool readOnce(std::size_t member, std::size_t stream) {
    const int fd = children_[member].pipes[stream].get();
    ssize_t n = 0;
    do {
      n = ::read(fd, buffer_.data(), buffer_.size());
    } while (n < 0 && errno == EINTR);
    if (n > 0) {
      deliver(member, stream, std::string_view(buffer_.data(), static_cast<std::size_t>(n)));
      return true;
    }
    if (n < 0 && errno == EAGAIN) return false;
    close(member, stream);  // end of file, or a pipe that cannot be read
    return false;
  }

  [[nodiscard]] const std::function<void(std::size_t, std::string_view)>& callback(
      std::size_t stream) const {
    return stream == 0 ? options_.onStdoutLine : options_.onStderrLine;
  }

  // Hands on each complete line; keeps the rest for the next read.
  void deliver(std::size_t member, std::size_t stream, std::string_view data) {
    const auto& onLine = callback(stream);
    if (!onLine) return;
    std::string& partial = children_[member].partial[stream];
    for (std::size_t newline = data.find('\n'); newline != std::string_view::npos;
         newline = data.find('\n')) {
      if (partial.empty()) {
        onLine(member, data.substr(0, newline));
      } else {
        partial.append(data.substr(0, newline));
        const std::string line = std::move(partial);
        partial.clear();
        onLine(member, line);
      }
      data.remove_prefix(newline + 1);
    }
    partial.append(data);
  }

  // The pipe is done: a last line without '\n' is still a line.
  void close(std::size_t member, std::size_t stream) {
    Child& child = children_[member];
    child.pipes[stream].reset();
    if (child.partial[stream].empty() || !callback(stream)) return;
    const std::string line = std::move(child.partial[stream]);
    child.partial[stream].clear();
    callback(stream)(member, line);
  }

  std::vector<Child> children_;
  const GroupOptions& options_;
  std::optional<std::chrono::steady_clock::time_point> stopSentAt_;
  bool killed_ = false;
  std::array<char, 65536> buffer_{};
};

}  // namespace

Expected<ProcessResult> runProcess(const std::vector<std::string>& argv,
                                   const ProcessOptions& options) {
  if (argv.empty()) return makeError(ErrorKind::BadInput, "no program to run");

  Fd inRead, inWrite, outRead, outWrite, errRead, errWrite;
  if (!makePipe(inRead, inWrite) || !makePipe(outRead, outWrite) || !makePipe(errRead, errWrite)) {
    return makeError(ErrorKind::Io, std::string("cannot create pipes: ") + std::strerror(errno));
  }

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, inRead.get(), STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, outWrite.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, errWrite.get(), STDERR_FILENO);

  const Expected<pid_t> spawned = spawn(argv, actions, childEnvironment(options), true);
  if (!spawned) return spawned.error();
  const pid_t pid = *spawned;
  inRead.reset();
  outWrite.reset();
  errWrite.reset();

  // A child that does not read its stdin must not block us: write what fits
  // while also draining its output, and never write past a closed pipe.
  ::signal(SIGPIPE, SIG_IGN);
  std::string_view pendingInput = options.standardInput;
  if (pendingInput.empty()) inWrite.reset();
  else ::fcntl(inWrite.get(), F_SETFL, O_NONBLOCK);

  ProcessResult result;
  const auto deadline = std::chrono::steady_clock::now() + options.timeout;
  std::array<char, 65536> buffer{};
  while (outRead.get() >= 0 || errRead.get() >= 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timedOut = true;
      ::kill(pid, SIGKILL);
      break;
    }
    std::array<pollfd, 3> fds{
        {{outRead.get(), POLLIN, 0}, {errRead.get(), POLLIN, 0}, {inWrite.get(), POLLOUT, 0}}};
    const int ready = ::poll(fds.data(), fds.size(), static_cast<int>(left.count()));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if ((fds[static_cast<std::size_t>(i)].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      Fd& fd = i == 0 ? outRead : errRead;
      std::string& sink = i == 0 ? result.standardOutput : result.standardError;
      const ssize_t n = ::read(fd.get(), buffer.data(), buffer.size());
      if (n > 0) sink.append(buffer.data(), static_cast<std::size_t>(n));
      else if (n == 0 || errno != EINTR) fd.reset();
    }
    if (inWrite.get() >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP)) != 0) {
      const ssize_t n = ::write(inWrite.get(), pendingInput.data(), pendingInput.size());
      if (n > 0) pendingInput.remove_prefix(static_cast<std::size_t>(n));
      if (n < 0 && errno != EAGAIN && errno != EINTR) pendingInput = {};
      if (pendingInput.empty()) inWrite.reset();
    }
  }

  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  recordExit(status, result);
  return result;
}

Expected<WatchedOutcome> runWatchedProcess(const std::vector<std::string>& argv,
                                           const WatchOptions& options, const StopToken& stop,
                                           const std::function<void()>& onTick) {
  if (argv.empty()) return makeError(ErrorKind::BadInput, "no program to run");
  // Opened here, not by the spawn's file actions, so that a log that cannot
  // be written is an error naming the log, not one naming the program.
  const std::string log = options.logFile.string();
  const Fd logFd(::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (logFd.get() < 0) {
    return makeError(ErrorKind::Io, "cannot write " + log + ": " + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, logFd.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, logFd.get(), STDERR_FILENO);
  const Expected<pid_t> spawned = spawn(argv, actions, childEnvironment({}), false);
  if (!spawned) return spawned.error();
  const pid_t pid = *spawned;

  WatchedOutcome outcome;
  std::chrono::steady_clock::time_point stopSentAt;
  bool killed = false;
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      return makeError(ErrorKind::Runtime, std::string("waitpid: ") + std::strerror(errno));
    }
    if (onTick) onTick();
    if (!outcome.stopRequested && stop.stopRequested()) {
      outcome.stopRequested = true;
      stopSentAt = std::chrono::steady_clock::now();
      ::kill(pid, kStopSignal);
    }
    if (outcome.stopRequested && !killed &&
        std::chrono::steady_clock::now() - stopSentAt > options.stopGrace) {
      killed = true;
      ::kill(pid, SIGKILL);
    }
    std::this_thread::sleep_for(options.tick);
  }
  recordExit(status, outcome);
  return outcome;
}

Expected<GroupOutcome> runProcessGroup(const std::vector<GroupMember>& members,
                                       const GroupOptions& options, const StopToken& stop) {
  if (members.empty()) return makeError(ErrorKind::BadInput, "no program to run");
  for (const auto& member : members) {
    if (member.argv.empty()) return makeError(ErrorKind::BadInput, "no program to run");
  }
  Group group(members.size(), options);
  GroupOutcome outcome;
  outcome.exits.resize(members.size());
  // A member that cannot start fails the group like one that fails at once:
  // the ones already started are stopped and reaped before the error returns.
  std::optional<Error> startError;
  for (std::size_t i = 0; i < members.size() && !startError; ++i) {
    const Status started = group.start(i, members[i]);
    if (!started) {
      startError = started.error();
      group.stopAll();
    }
  }
  group.watch(stop, outcome);
  if (startError) return *startError;
  return outcome;
}

}  // namespace tb
