// The seam between the registry protocol and the network. The client speaks
// to this interface; production uses libcurl, unit tests a scripted fake, so
// the auth, retry and pagination logic is tested without sockets.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tb/common/expected.hpp"
#include "tb/common/stop_token.hpp"

namespace tb::registry {

/// One HTTP header line, name as sent or received.
struct HttpHeader {
  std::string name;
  std::string value;
};

/// A request; the body is sent only for POST, PUT and PATCH.
struct HttpRequest {
  std::string method = "GET";
  std::string url;
  std::vector<HttpHeader> headers;
  std::string body;
};

/// A complete response (the body is capped by TransportOptions).
struct HttpResponse {
  long status = 0;
  std::vector<HttpHeader> headers;
  std::string body;

  /// The first header of that name, compared without case.
  [[nodiscard]] std::optional<std::string> header(std::string_view name) const;
  /// Every header of that name, in order (Link may repeat).
  [[nodiscard]] std::vector<std::string> headersNamed(std::string_view name) const;
};

/// Limits every request obeys.
struct TransportOptions {
  std::chrono::milliseconds connectTimeout{10'000};
  std::chrono::milliseconds totalTimeout{60'000};
  std::size_t maxResponseBytes = 8u * 1024u * 1024u;  ///< manifests and configs are small
  bool verifyTls = true;  ///< off only for loopback test registries (--insecure)
  /// Stopped (from any thread): the request in flight is abandoned and later
  /// ones are refused with ErrorKind::Cancelled. libcurl polls it from its
  /// progress callback, which runs at least once a second on a silent socket.
  StopToken cancel;
};

/// Sends one request and returns the response, whatever its status. An Error
/// (kind Io) means no response arrived: refused, timed out, TLS, too large.
class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  [[nodiscard]] virtual Expected<HttpResponse> send(const HttpRequest& request) = 0;
};

/// The libcurl transport. Proxies come from the environment (http_proxy,
/// https_proxy, no_proxy), as libcurl reads them by default.
[[nodiscard]] std::unique_ptr<HttpTransport> makeCurlTransport(const TransportOptions& options);

/// The transport's library and version as it reports itself at run time
/// ("libcurl 7.88.1, GnuTLS/3.7.9"), or why there is none.
[[nodiscard]] std::string transportLibraryVersion();

}  // namespace tb::registry
