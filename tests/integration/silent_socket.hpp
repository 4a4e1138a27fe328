// A registry that hangs: a socket on 127.0.0.1 that listens but never
// accepts or replies. The kernel still completes connections from the listen
// backlog, so a client connects and then waits for an answer that never
// comes: the case Cancel buttons and total timeouts exist for. Shared by the
// libcurl transport's cancel tests and the registry panel's Qt test.
#pragma once

#include <string>

namespace tb::registry::test {

/// Listens on an ephemeral loopback port until destroyed.
class SilentSocket {
 public:
  SilentSocket();
  ~SilentSocket();
  SilentSocket(const SilentSocket&) = delete;
  SilentSocket& operator=(const SilentSocket&) = delete;

  /// Why the socket is not listening; empty when it is.
  [[nodiscard]] const std::string& error() const noexcept { return error_; }
  [[nodiscard]] int port() const noexcept { return port_; }
  /// "127.0.0.1:PORT", as a registry host.
  [[nodiscard]] std::string host() const;
  /// The registry API root on it: "http://127.0.0.1:PORT/v2/".
  [[nodiscard]] std::string url() const;

 private:
  int fd_ = -1;
  int port_ = 0;
  std::string error_;
};

}  // namespace tb::registry::test
