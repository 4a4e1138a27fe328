// Plain POSIX sockets: the point is a peer that does nothing at all, which
// no HTTP server library offers. Each failing call is named in error() so a
// test on a machine without loopback says why instead of timing out.
#include "silent_socket.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace tb::registry::test {
namespace {

std::string failure(const char* call) {
  return std::string(call) + " on 127.0.0.1 failed: " + std::strerror(errno);
}

}  // namespace

SilentSocket::SilentSocket() {
  fd_ = socket(AF_INET, SOCK_STREAM, 0);
  if (fd_ < 0) {
    error_ = failure("socket");
    return;
  }
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  auto* generic = reinterpret_cast<sockaddr*>(&address);
  if (bind(fd_, generic, length) != 0) {
    error_ = failure("bind");
  } else if (listen(fd_, 8) != 0) {
    error_ = failure("listen");
  } else if (getsockname(fd_, generic, &length) != 0) {
    error_ = failure("getsockname");
  } else {
    port_ = ntohs(address.sin_port);
  }
}

SilentSocket::~SilentSocket() {
  if (fd_ >= 0) close(fd_);
}

std::string SilentSocket::host() const { return "127.0.0.1:" + std::to_string(port_); }

std::string SilentSocket::url() const { return "http://" + host() + "/v2/"; }

}  // namespace tb::registry::test
