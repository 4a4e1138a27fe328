// The port is picked free just before the start; if another process takes it
// in between, the server fails to start and the log says so. Readiness is
// polled with the project's own transport, bounded at 20 seconds.
#include "registry_server.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "registry_loopback_http.hpp"
#include "tb/registry/http_transport.hpp"

extern char** environ;

namespace tb::registry::test {
namespace {

constexpr const char* kRegistryBinary = "/usr/bin/docker-registry";

std::string makeTempDirectory() {
  std::string pattern = (std::filesystem::temp_directory_path() / "tb-registry-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) return {};
  return pattern;
}

}  // namespace

void bypassProxiesForLoopback() {
  setenv("NO_PROXY", "127.0.0.1,localhost,::1", 1);
  setenv("no_proxy", "127.0.0.1,localhost,::1", 1);
}

RegistryServer::RegistryServer(RegistryAuth auth, const std::string& tokenRealm) {
  bypassProxiesForLoopback();
  if (access(kRegistryBinary, X_OK) != 0) {
    startError_ =
        std::string(kRegistryBinary) + " is not installed (Debian package docker-registry)";
    return;
  }
  directory_ = makeTempDirectory();
  if (directory_.empty()) {
    startError_ = "cannot create a temporary directory";
    return;
  }
  port_ = freeLoopbackPort();
  const std::string config = directory_ + "/config.yml";
  {
    std::ofstream out(config);
    out << "version: 0.1\n"
        << "log: {level: info}\n"
        << "storage: {filesystem: {rootdirectory: " << directory_ << "/storage}, "
        << "delete: {enabled: true}}\n"
        << "http: {addr: " << host() << "}\n";
    if (auth == RegistryAuth::Silly) {
      out << "auth: {silly: {realm: \"" << tokenRealm << "\", service: local-registry}}\n";
    }
  }
  const std::string logFile = directory_ + "/server.log";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, logFile.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::string program = kRegistryBinary;
  std::string serve = "serve";
  std::string configArg = config;
  char* argv[] = {program.data(), serve.data(), configArg.data(), nullptr};
  const int spawned = posix_spawn(&pid_, kRegistryBinary, &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    pid_ = -1;
    startError_ = "cannot start docker-registry";
    return;
  }
  if (!waitUntilReady()) {
    startError_ = "docker-registry did not answer on " + host() + "; its log:\n" + log();
    stop();
  }
}

RegistryServer::~RegistryServer() {
  stop();
  if (!directory_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(directory_, ignored);
  }
}

void RegistryServer::stop() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  int status = 0;
  while (waitpid(pid_, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  pid_ = -1;
}

bool RegistryServer::waitUntilReady() {
  TransportOptions options;
  options.connectTimeout = std::chrono::milliseconds(500);
  options.totalTimeout = std::chrono::milliseconds(2000);
  const auto transport = makeCurlTransport(options);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return false;
    }
    HttpRequest request;
    request.url = "http://" + host() + "/v2/";
    auto response = transport->send(request);
    if (response && (response->status == 200 || response->status == 401)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

std::string RegistryServer::log() const {
  std::ifstream in(directory_ + "/server.log");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace tb::registry::test
