// The registry client against a hostile server on loopback: slow answers,
// endless bodies, endless headers, a redirect loop, JSON that is not, a
// manifest served as a web page, and a TLS certificate that does not verify.
// Each must end in bounded time and memory with a message that names the
// registry and what went wrong; TLS verification is on unless turned off.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "registry_loopback_http.hpp"
#include "silent_socket.hpp"
#include "tb/common/subprocess.hpp"
#include "tb/registry/registry_client.hpp"

namespace tb::registry::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr auto kTotalTimeout = 3s;
// The deadline a hostile answer must end within: the client's own limit
// plus the time to notice it.
constexpr auto kBound = kTotalTimeout + 3s;

std::unique_ptr<RegistryClient> clientFor(const std::string& host, Scheme scheme = Scheme::Http,
                                          std::size_t maxResponseBytes = 1u << 20) {
  TransportOptions transport;
  transport.connectTimeout = 2s;
  transport.totalTimeout = kTotalTimeout;
  transport.maxResponseBytes = maxResponseBytes;
  ClientOptions options;
  options.scheme = scheme;
  options.maxRetries = 0;
  return std::make_unique<RegistryClient>(host, std::move(options), makeCurlTransport(transport));
}

/// Runs `call`, checks it failed within kBound naming the host, returns its message.
template <class Call>
std::string failsInTime(const std::string& host, Call call) {
  const auto start = Clock::now();
  auto result = call();
  const auto took = Clock::now() - start;
  EXPECT_FALSE(result.ok());
  EXPECT_LT(took, kBound) << std::chrono::duration<double>(took).count() << " s";
  if (result.ok()) return {};
  EXPECT_NE(result.error().message.find(host), std::string::npos) << result.error().message;
  return result.error().message;
}

constexpr const char* kRepository = "egslingjun/training-nv-pytorch";

TEST(RegistryHostile, ASlowDripEndsAtTheTotalTimeout) {
  LoopbackHttpServer server([](const ReceivedRequest&, const LoopbackHttpServer::Writer& write) {
    if (!write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
               "Content-Length: 1000000\r\n\r\n")) {
      return;
    }
    while (write("{")) std::this_thread::sleep_for(100ms);
  });
  auto client = clientFor(server.address());
  const std::string message =
      failsInTime(server.address(), [&] { return client->listTags(kRepository); });
  EXPECT_NE(message.find("network error"), std::string::npos) << message;
}

TEST(RegistryHostile, AServerThatNeverAnswersEndsAtTheTotalTimeout) {
  SilentSocket silent;
  ASSERT_TRUE(silent.error().empty()) << silent.error();
  auto client = clientFor(silent.host());
  failsInTime(silent.host(), [&] { return client->listTags(kRepository); });
}

TEST(RegistryHostile, AnEndlessBodyStopsAtTheSizeLimit) {
  LoopbackHttpServer server([](const ReceivedRequest&, const LoopbackHttpServer::Writer& write) {
    if (!write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"
               "{\"tags\":[")) {
      return;
    }
    const std::string chunk(64 * 1024, ' ');
    while (write(chunk)) {
    }
  });
  auto client = clientFor(server.address());
  const std::string message =
      failsInTime(server.address(), [&] { return client->listTags(kRepository); });
  EXPECT_NE(message.find("1048576-byte limit"), std::string::npos) << message;
}

TEST(RegistryHostile, EndlessHeadersAreRefused) {
  LoopbackHttpServer server([](const ReceivedRequest&, const LoopbackHttpServer::Writer& write) {
    if (!write("HTTP/1.1 200 OK\r\n")) return;
    const std::string line = "X-Padding: " + std::string(1000, 'a') + "\r\n";
    while (write(line)) {
    }
  });
  auto client = clientFor(server.address());
  const std::string message =
      failsInTime(server.address(), [&] { return client->listTags(kRepository); });
  EXPECT_NE(message.find("headers"), std::string::npos) << message;
  EXPECT_NE(message.find("limit"), std::string::npos) << message;
}

TEST(RegistryHostile, ARedirectLoopEnds) {
  LoopbackHttpServer server([](const ReceivedRequest& request) {
    const std::string path = request.requestLine.substr(4, request.requestLine.rfind(' ') - 4);
    return "HTTP/1.1 302 Found\r\nLocation: " + path +
           "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
  });
  auto client = clientFor(server.address());
  const std::string message =
      failsInTime(server.address(), [&] { return client->listTags(kRepository); });
  EXPECT_NE(message.find("redirect"), std::string::npos) << message;
  // curl's limit of 5 follows, not a loop: a handful of requests.
  EXPECT_LE(server.requests().size(), 8u);
}

TEST(RegistryHostile, JsonThatIsNotIsAParseError) {
  LoopbackHttpServer server([](const ReceivedRequest&) {
    return httpResponse(200, "application/json", "{\"name\":\"x\",\"tags\":[\"a\",");
  });
  auto client = clientFor(server.address());
  auto tags = client->listTags(kRepository);
  ASSERT_FALSE(tags.ok());
  EXPECT_NE(tags.error().message.find("not JSON"), std::string::npos) << tags.error().message;
  EXPECT_NE(tags.error().message.find(server.address()), std::string::npos) << tags.error().message;
}

TEST(RegistryHostile, AManifestServedAsAWebPageIsRefusedNamingItsType) {
  LoopbackHttpServer server([](const ReceivedRequest&) {
    return httpResponse(200, "text/html", "<html><body>Welcome to the portal</body></html>");
  });
  auto client = clientFor(server.address());
  auto manifest = client->fetchManifest(kRepository, "25.10-serverless");
  ASSERT_FALSE(manifest.ok());
  // Its first bytes are quoted, so the user sees it was a web page.
  EXPECT_NE(manifest.error().message.find("not JSON"), std::string::npos)
      << manifest.error().message;
  EXPECT_NE(manifest.error().message.find("<html>"), std::string::npos) << manifest.error().message;
}

TEST(RegistryHostile, AServerEchoingCredentialsIntoItsErrorsDoesNotLeakThem) {
  // Basic auth challenged, then every answer an error that quotes the
  // Authorization header it got, as careless proxies and portals do.
  constexpr const char* kSecret = "s3cr3t-Pa55word";
  LoopbackHttpServer server([](const ReceivedRequest& request) {
    if (request.authorization.empty()) {
      return std::string(
          "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"r\"\r\n"
          "Content-Length: 0\r\nConnection: close\r\n\r\n");
    }
    return httpResponse(500, "application/json",
                        "{\"errors\":[{\"code\":\"UNKNOWN\",\"message\":\"cannot use "
                        "credentials '" +
                            request.authorization + "'\"}]}");
  });
  TransportOptions transport;
  transport.totalTimeout = kTotalTimeout;
  ClientOptions options;
  options.scheme = Scheme::Http;
  options.maxRetries = 0;
  options.credentials = Credentials{"alice", kSecret};
  RegistryClient client(server.address(), std::move(options), makeCurlTransport(transport));
  auto tags = client.listTags(kRepository);
  ASSERT_FALSE(tags.ok());
  const std::string& message = tags.error().message;
  const std::string basic = "YWxpY2U6czNjcjN0LVBhNTV3b3Jk";  // base64("alice:" + kSecret)
  EXPECT_EQ(message.find(kSecret), std::string::npos) << message;
  EXPECT_EQ(message.find(basic), std::string::npos) << message;
  EXPECT_NE(message.find("HTTP 500"), std::string::npos) << message;
  ASSERT_GE(server.requests().size(), 2u);
  EXPECT_EQ(server.requests().back().authorization, "Basic " + basic);
}

TEST(RegistryHostile, AServerEchoingCredentialsIntoItsAnswerDoesNotLeakThem) {
  // A 200 whose body is the Authorization header: the "not JSON" message
  // quotes the body's start, which must not carry the credential.
  LoopbackHttpServer server([](const ReceivedRequest& request) {
    if (request.authorization.empty()) {
      return std::string(
          "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"r\"\r\n"
          "Content-Length: 0\r\nConnection: close\r\n\r\n");
    }
    return httpResponse(200, "text/plain", request.authorization);
  });
  TransportOptions transport;
  transport.totalTimeout = kTotalTimeout;
  ClientOptions options;
  options.scheme = Scheme::Http;
  options.maxRetries = 0;
  options.credentials = Credentials{"alice", "s3cr3t-Pa55word"};
  RegistryClient client(server.address(), std::move(options), makeCurlTransport(transport));
  auto tags = client.listTags(kRepository);
  ASSERT_FALSE(tags.ok());
  EXPECT_EQ(tags.error().message.find("YWxpY2U6czNjcjN0LVBhNTV3b3Jk"), std::string::npos)
      << tags.error().message;
  EXPECT_NE(tags.error().message.find("[redacted]"), std::string::npos) << tags.error().message;
}

TEST(RegistryHostile, ACertificateThatDoesNotVerifyIsRefused) {
  // A self-signed certificate for 127.0.0.1, served by openssl s_server.
  const auto dir =
      std::filesystem::temp_directory_path() / ("tb-registry-tls-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string key = (dir / "key.pem").string();
  const std::string cert = (dir / "cert.pem").string();
  auto made = runProcess({"openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                          "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1", "-subj",
                          "/CN=127.0.0.1", "-keyout", key, "-out", cert});
  ASSERT_TRUE(made.ok()) << "openssl is needed: " << made.error().message;
  ASSERT_EQ(made->exitCode, 0) << made->standardError;
  const int port = freeLoopbackPort();
  const std::string host = "127.0.0.1:" + std::to_string(port);
  std::atomic<bool> done{false};
  std::thread server([&] {
    ProcessOptions options;
    options.timeout = 20s;
    (void)runProcess({"/bin/sh", "-c",
                      "exec openssl s_server -quiet -accept " + std::to_string(port) + " -cert " +
                          cert + " -key " + key + " -www"},
                     options);
    done = true;
  });
  // Wait until it listens.
  auto client = clientFor(host, Scheme::Https);
  Expected<std::vector<std::string>> tags = client->listTags(kRepository);
  for (int tries = 0;
       tries < 50 && !tags.ok() && tags.error().message.find("certificate") == std::string::npos;
       ++tries) {
    std::this_thread::sleep_for(100ms);
    tags = client->listTags(kRepository);
  }
  ASSERT_FALSE(tags.ok());
  EXPECT_NE(tags.error().message.find("certificate"), std::string::npos) << tags.error().message;
  EXPECT_NE(tags.error().message.find(host), std::string::npos) << tags.error().message;
  // Turned off (the user's --insecure), the same server is talked to: what
  // comes back is its web page, not a TLS failure.
  TransportOptions insecure;
  insecure.verifyTls = false;
  insecure.totalTimeout = kTotalTimeout;
  ClientOptions options;
  options.scheme = Scheme::Https;
  options.maxRetries = 0;
  RegistryClient unverified(host, std::move(options), makeCurlTransport(insecure));
  auto page = unverified.listTags(kRepository);
  ASSERT_FALSE(page.ok());
  EXPECT_EQ(page.error().message.find("certificate"), std::string::npos) << page.error().message;
  (void)runProcess({"pkill", "-f", "s_server -quiet -accept " + std::to_string(port)});
  server.join();
  EXPECT_TRUE(done);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tb::registry::test
