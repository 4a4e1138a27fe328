// Cancellation of the libcurl transport against a real socket that accepts
// connections (the kernel does, from the listen backlog) and never answers:
// the case a Cancel button exists for. Without the progress-callback hook the
// request would sit there until the total timeout.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "silent_socket.hpp"
#include "tb/registry/http_transport.hpp"

namespace tb::registry::test {
namespace {

using namespace std::chrono_literals;

TEST(CurlTransportCancel, ASilentServerIsLeftPromptlyWhenCancelled) {
  const SilentSocket listener;
  ASSERT_EQ(listener.error(), "");
  StopSource cancel;
  TransportOptions options;
  options.totalTimeout = 30s;  // far longer than the test may take
  options.cancel = cancel.token();
  const auto transport = makeCurlTransport(options);

  std::thread canceller([cancel] {
    std::this_thread::sleep_for(300ms);
    cancel.requestStop();
  });
  HttpRequest request;
  request.url = listener.url();
  const auto start = std::chrono::steady_clock::now();
  const auto response = transport->send(request);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  canceller.join();

  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, ErrorKind::Cancelled);
  EXPECT_NE(response.error().message.find("127.0.0.1"), std::string::npos)
      << response.error().message;
  EXPECT_NE(response.error().message.find("cancelled"), std::string::npos);
  EXPECT_LT(elapsed, 2500ms) << "libcurl polls the flag at least once a second";
}

TEST(CurlTransportCancel, ARequestAfterCancelIsRefusedWithoutConnecting) {
  const SilentSocket listener;
  ASSERT_EQ(listener.error(), "");
  TransportOptions options;
  StopSource cancel;
  cancel.requestStop();
  options.cancel = cancel.token();
  HttpRequest request;
  request.url = listener.url();
  const auto start = std::chrono::steady_clock::now();
  const auto response = makeCurlTransport(options)->send(request);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, ErrorKind::Cancelled);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 200ms);
}

TEST(CurlTransportCancel, WithoutCancelTheTimeoutStillEndsASilentRequest) {
  const SilentSocket listener;
  ASSERT_EQ(listener.error(), "");
  TransportOptions options;
  options.totalTimeout = 400ms;
  StopSource cancel;
  options.cancel = cancel.token();
  HttpRequest request;
  request.url = listener.url();
  const auto response = makeCurlTransport(options)->send(request);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, ErrorKind::Io) << response.error().message;
}

}  // namespace
}  // namespace tb::registry::test
