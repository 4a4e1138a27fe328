// A minimal HTTP/1.1 server on 127.0.0.1 in a thread, for what the registry
// tests must fake: the token endpoint of `silly` auth, a server that answers
// something that is not JSON, and an HTTP proxy. It records every request so
// tests can check what the client sent (and what it did not).
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace tb::registry::test {

/// One request as the server read it.
struct ReceivedRequest {
  std::string requestLine;    ///< "GET /token?service=... HTTP/1.1"
  std::string authorization;  ///< the Authorization header, "" when absent
};

/// A complete HTTP/1.1 response with Content-Length and Connection: close.
std::string httpResponse(int status, const std::string& contentType, const std::string& body);

class LoopbackHttpServer {
 public:
  /// Returns the raw response for a request.
  using Handler = std::function<std::string(const ReceivedRequest&)>;
  /// Sends bytes to the client; false once the client has gone or the
  /// server is stopping, so a streaming answer knows to end.
  using Writer = std::function<bool(std::string_view)>;
  /// Answers a request by writing it a piece at a time (a hostile server:
  /// slow, endless or malformed).
  using Streamer = std::function<void(const ReceivedRequest&, const Writer&)>;

  explicit LoopbackHttpServer(Handler handler);
  explicit LoopbackHttpServer(Streamer streamer);
  ~LoopbackHttpServer();
  LoopbackHttpServer(const LoopbackHttpServer&) = delete;
  LoopbackHttpServer& operator=(const LoopbackHttpServer&) = delete;

  [[nodiscard]] int port() const { return port_; }
  [[nodiscard]] std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  [[nodiscard]] std::vector<ReceivedRequest> requests() const;

 private:
  void serve();
  void answer(int connection);

  Streamer streamer_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  mutable std::mutex mutex_;
  std::vector<ReceivedRequest> requests_;
  std::thread thread_;
};

/// A port that was free a moment ago on 127.0.0.1 (for docker-registry).
int freeLoopbackPort();

}  // namespace tb::registry::test
