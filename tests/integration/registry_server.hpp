// Debian's docker-registry (distribution 2.8) as a real child process on
// 127.0.0.1, with a throwaway configuration and storage directory. RAII: the
// destructor stops the server and removes its files, so a failing test leaves
// nothing running. runProcess is not used because it waits for the child.
#pragma once

#include <sys/types.h>

#include <string>

namespace tb::registry::test {

/// Whether the registry asks for Bearer tokens (`auth: silly`).
enum class RegistryAuth { None, Silly };

class RegistryServer {
 public:
  /// Starts the server and waits until /v2/ answers. With Silly auth,
  /// `tokenRealm` is the token endpoint its challenges name.
  explicit RegistryServer(RegistryAuth auth, const std::string& tokenRealm = {});
  ~RegistryServer();
  RegistryServer(const RegistryServer&) = delete;
  RegistryServer& operator=(const RegistryServer&) = delete;

  /// Empty when the server runs; otherwise why it does not (with its log).
  [[nodiscard]] const std::string& startError() const { return startError_; }
  /// "127.0.0.1:PORT".
  [[nodiscard]] std::string host() const { return "127.0.0.1:" + std::to_string(port_); }
  /// Stops the server now (a registry that goes away mid-test).
  void stop();

 private:
  bool waitUntilReady();
  std::string log() const;

  std::string directory_;
  int port_ = 0;
  pid_t pid_ = -1;
  std::string startError_;
};

/// The environment loopback tests need: no proxy for 127.0.0.1, whatever the
/// machine's proxy settings are.
void bypassProxiesForLoopback();

}  // namespace tb::registry::test
