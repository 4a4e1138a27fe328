#include "tb/common/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
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
  const int spawnError =
      search ? ::posix_spawnp(&pid, args[0].c_str(), &actions, nullptr, argPointers.data(),
                              envPointers.data())
             : ::posix_spawn(&pid, args[0].c_str(), &actions, nullptr, argPointers.data(),
                             envPointers.data());
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
    std::array<pollfd, 3> fds{{{outRead.get(), POLLIN, 0},
                               {errRead.get(), POLLIN, 0},
                               {inWrite.get(), POLLOUT, 0}}};
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

}  // namespace tb
