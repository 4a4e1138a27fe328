// The child stays in our process group: Ctrl-C on a terminal reaches it
// directly and it stops cleanly on its own; a signal sent only to us (kill,
// a GUI's cancel) is forwarded as SIGINT by the loop below.
#include "child_run.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

extern char** environ;

namespace tb::bench {

Expected<ChildOutcome> runWatchedChild(const ChildOptions& options,
                                       const std::function<bool()>& keepGoing) {
  if (options.argv.empty()) return makeError(ErrorKind::BadInput, "no program to run");
  const std::string log = options.logFile.string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);

  std::vector<std::string> args = options.argv;
  std::vector<char*> pointers;
  for (std::string& arg : args) pointers.push_back(arg.data());
  pointers.push_back(nullptr);
  pid_t pid = 0;
  const int spawnError =
      ::posix_spawn(&pid, args[0].c_str(), &actions, nullptr, pointers.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawnError != 0) {
    return makeError(ErrorKind::Runtime,
                     "cannot run '" + args[0] + "': " + std::strerror(spawnError));
  }

  ChildOutcome outcome;
  std::chrono::steady_clock::time_point stopSentAt;
  bool killed = false;
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      return makeError(ErrorKind::Runtime, std::string("waitpid: ") + std::strerror(errno));
    }
    if (!outcome.stopRequested && !keepGoing()) {
      outcome.stopRequested = true;
      stopSentAt = std::chrono::steady_clock::now();
      ::kill(pid, SIGINT);
    }
    if (outcome.stopRequested && !killed &&
        std::chrono::steady_clock::now() - stopSentAt > options.stopGrace) {
      killed = true;
      ::kill(pid, SIGKILL);
    }
    std::this_thread::sleep_for(options.tick);
  }
  if (WIFEXITED(status)) outcome.exitCode = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
  return outcome;
}

}  // namespace tb::bench
