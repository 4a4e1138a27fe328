// Blocking sockets with a poll timeout keep the server small; it answers one
// connection at a time, which is all a sequential client test needs.
#include "registry_loopback_http.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>

#include "tb/common/text.hpp"

namespace tb::registry::test {
namespace {

int bindLoopback(int& port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw std::runtime_error("socket: " + std::string(std::strerror(errno)));
  const int yes = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    close(fd);
    throw std::runtime_error("bind: " + std::string(std::strerror(errno)));
  }
  socklen_t length = sizeof address;
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  port = ntohs(address.sin_port);
  return fd;
}

}  // namespace

std::string httpResponse(int status, const std::string& contentType, const std::string& body) {
  return "HTTP/1.1 " + std::to_string(status) + " Status\r\nContent-Type: " + contentType +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" +
         body;
}

int freeLoopbackPort() {
  int port = 0;
  close(bindLoopback(port));
  return port;
}

LoopbackHttpServer::LoopbackHttpServer(Handler handler)
    : LoopbackHttpServer(Streamer(
          [handler = std::move(handler)](const ReceivedRequest& request, const Writer& write) {
            write(handler(request));
          })) {}

LoopbackHttpServer::LoopbackHttpServer(Streamer streamer) : streamer_(std::move(streamer)) {
  listener_ = bindLoopback(port_);
  if (listen(listener_, 16) != 0) throw std::runtime_error("listen failed");
  thread_ = std::thread([this] { serve(); });
}

LoopbackHttpServer::~LoopbackHttpServer() {
  stop_ = true;
  thread_.join();
  close(listener_);
}

std::vector<ReceivedRequest> LoopbackHttpServer::requests() const {
  const std::lock_guard lock(mutex_);
  return requests_;
}

void LoopbackHttpServer::serve() {
  while (!stop_) {
    pollfd waiting{listener_, POLLIN, 0};
    if (poll(&waiting, 1, 50) <= 0) continue;
    const int connection = accept(listener_, nullptr, nullptr);
    if (connection < 0) continue;
    answer(connection);
    close(connection);
  }
}

void LoopbackHttpServer::answer(int connection) {
  std::string received;
  char buffer[4096];
  while (received.find("\r\n\r\n") == std::string::npos && received.size() < 65536) {
    pollfd readable{connection, POLLIN, 0};
    if (poll(&readable, 1, 2000) <= 0) return;
    const ssize_t count = recv(connection, buffer, sizeof buffer, 0);
    if (count <= 0) return;
    received.append(buffer, static_cast<std::size_t>(count));
  }
  ReceivedRequest request;
  request.requestLine = received.substr(0, received.find("\r\n"));
  for (const std::string_view line : split(received, '\n')) {
    const auto colon = line.find(':');
    if (colon != std::string_view::npos &&
        toLower(trim(line.substr(0, colon))) == "authorization") {
      request.authorization = std::string(trim(line.substr(colon + 1)));
    }
  }
  {
    const std::lock_guard lock(mutex_);
    requests_.push_back(request);
  }
  const Writer write = [this, connection](std::string_view bytes) {
    std::size_t sent = 0;
    while (sent < bytes.size()) {
      if (stop_) return false;
      // Bounded, so a client that stops reading cannot hold the server.
      pollfd writable{connection, POLLOUT, 0};
      if (poll(&writable, 1, 200) <= 0) continue;
      const ssize_t count =
          send(connection, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (count <= 0) return false;
      sent += static_cast<std::size_t>(count);
    }
    return !stop_;
  };
  streamer_(request, write);
}

}  // namespace tb::registry::test
