// libcurl behind HttpTransport. One easy handle per request keeps it simple
// and thread-safe; registry calls are few and connection reuse buys little.
// curl_global_init runs once, before any thread could race on it.
#include <curl/curl.h>

#include <algorithm>
#include <mutex>

#include "tb/common/text.hpp"
#include "tb/registry/http_transport.hpp"

namespace tb::registry {
namespace {

// A registry's response headers are a few hundred bytes; a server sending
// more than this (endless header lines) is refused rather than buffered.
constexpr std::size_t kMaxHeaderBytes = 64 * 1024;

struct Received {
  HttpResponse response;
  std::size_t cap = 0;
  bool overflow = false;
  std::size_t headerBytes = 0;
  bool headerOverflow = false;
};

std::size_t onBody(char* data, std::size_t size, std::size_t count, void* user) {
  auto* received = static_cast<Received*>(user);
  const std::size_t bytes = size * count;
  if (received->response.body.size() + bytes > received->cap) {
    received->overflow = true;
    return 0;  // makes curl stop with CURLE_WRITE_ERROR
  }
  received->response.body.append(data, bytes);
  return bytes;
}

// Returning non-zero makes curl_easy_perform stop with CURLE_ABORTED_BY_CALLBACK.
int onProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  const auto* cancel = static_cast<const StopToken*>(user);
  return cancel->stopRequested() ? 1 : 0;
}

std::size_t onHeader(char* data, std::size_t size, std::size_t count, void* user) {
  auto* received = static_cast<Received*>(user);
  const std::size_t bytes = size * count;
  received->headerBytes += bytes;
  if (received->headerBytes > kMaxHeaderBytes) {
    received->headerOverflow = true;
    return 0;  // makes curl stop with CURLE_WRITE_ERROR
  }
  const std::string_view line(data, bytes);
  // A new status line (after a redirect or 100 Continue) starts a new set.
  if (line.starts_with("HTTP/")) {
    received->response.headers.clear();
  } else if (const auto colon = line.find(':'); colon != std::string_view::npos) {
    received->response.headers.push_back(
        {std::string(trim(line.substr(0, colon))), std::string(trim(line.substr(colon + 1)))});
  }
  return bytes;
}

// "http://127.0.0.1:5000/v2/..." -> "127.0.0.1:5000", for messages.
std::string hostOf(const std::string& url) {
  const auto start = url.find("://");
  const std::size_t from = start == std::string::npos ? 0 : start + 3;
  const auto end = url.find_first_of("/?", from);
  return url.substr(from, end == std::string::npos ? std::string::npos : end - from);
}

class CurlTransport final : public HttpTransport {
 public:
  explicit CurlTransport(const TransportOptions& options) : options_(options) {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  }

  Expected<HttpResponse> send(const HttpRequest& request) override {
    if (cancelled()) return cancelledError(request);
    CURL* curl = curl_easy_init();
    if (curl == nullptr) return makeError(ErrorKind::Runtime, "cannot initialise libcurl");
    Received received;
    received.cap = options_.maxResponseBytes;
    curl_slist* headers = nullptr;
    for (const HttpHeader& header : request.headers) {
      headers = curl_slist_append(headers, (header.name + ": " + header.value).c_str());
    }
    char curlMessage[CURL_ERROR_SIZE] = {};
    curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, curlMessage);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(options_.connectTimeout.count()));
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.totalTimeout.count()));
    curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE,
                     static_cast<curl_off_t>(options_.maxResponseBytes));
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, options_.verifyTls ? 1L : 0L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, options_.verifyTls ? 2L : 0L);
    // Blob GETs are redirected to storage; credentials are not forwarded to
    // another host (libcurl's default without CURLOPT_UNRESTRICTED_AUTH).
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 5L);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &onBody);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &received);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, &onHeader);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &received);
    if (options_.cancel.stopPossible()) {
      curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
      curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, &onProgress);
      curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &options_.cancel);
    }
    if (request.method == "HEAD") {
      curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
    } else if (request.method != "GET") {
      curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
      curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.data());
      curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
                       static_cast<curl_off_t>(request.body.size()));
    }
    const CURLcode code = curl_easy_perform(curl);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &received.response.status);
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);

    const std::string host = hostOf(request.url);
    if (code == CURLE_ABORTED_BY_CALLBACK && cancelled()) return cancelledError(request);
    if (received.headerOverflow) {
      return makeError(ErrorKind::Io, "registry " + host + ": the response headers to " +
                                          request.method + " are larger than the " +
                                          std::to_string(kMaxHeaderBytes) + "-byte limit");
    }
    if (received.overflow || code == CURLE_FILESIZE_EXCEEDED) {
      return makeError(ErrorKind::Io, "registry " + host + ": the response to " + request.method +
                                          " is larger than the " +
                                          std::to_string(options_.maxResponseBytes) +
                                          "-byte limit");
    }
    if (code != CURLE_OK) {
      const std::string reason = curlMessage[0] != '\0' ? curlMessage : curl_easy_strerror(code);
      return makeError(ErrorKind::Io, "registry " + host + ": network error: " + reason);
    }
    return std::move(received.response);
  }

 private:
  bool cancelled() const { return options_.cancel.stopRequested(); }

  static Error cancelledError(const HttpRequest& request) {
    return makeError(ErrorKind::Cancelled,
                     "registry " + hostOf(request.url) + ": " + request.method + " cancelled");
  }

  TransportOptions options_;
};

}  // namespace

std::string transportLibraryVersion() {
  const curl_version_info_data* info = curl_version_info(CURLVERSION_NOW);
  std::string text = std::string("libcurl ") + info->version;
  if (info->ssl_version != nullptr) text += std::string(", ") + info->ssl_version;
  return text;
}

std::unique_ptr<HttpTransport> makeCurlTransport(const TransportOptions& options) {
  return std::make_unique<CurlTransport>(options);
}

}  // namespace tb::registry
