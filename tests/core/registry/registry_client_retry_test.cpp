// Retries are bounded and back off; only 429 and 5xx are retried.
#include <gtest/gtest.h>

#include "scripted_transport.hpp"

namespace tb::registry::test {
namespace {

constexpr const char* kOneTag = R"({"name":"app","tags":["1"]})";

TEST(RegistryClientRetry, ServerErrorsAreRetriedWithDoublingBackoff) {
  ClientOptions options;
  options.initialBackoff = std::chrono::milliseconds(100);
  ScriptedClient scripted(options);
  scripted.script->replies.push_back(reply(503));
  scripted.script->replies.push_back(reply(502));
  scripted.script->replies.push_back(reply(200, kOneTag));
  auto tags = scripted.client->listTags("app");
  ASSERT_TRUE(tags) << tags.error().message;
  EXPECT_EQ(*scripted.sleeps, (std::vector<long long>{100, 200}));
}

TEST(RegistryClientRetry, RetriesAreBoundedAndTheErrorSaysSo) {
  ClientOptions options;
  options.maxRetries = 2;
  ScriptedClient scripted(options);
  for (int i = 0; i < 3; ++i) scripted.script->replies.push_back(reply(500));
  auto tags = scripted.client->listTags("app");
  ASSERT_FALSE(tags);
  EXPECT_EQ(scripted.script->sent.size(), 3u);
  EXPECT_EQ(tags.error().kind, ErrorKind::Runtime);
  EXPECT_NE(tags.error().message.find("HTTP 500"), std::string::npos) << tags.error().message;
  EXPECT_NE(tags.error().message.find("after 3 attempts"), std::string::npos);
}

TEST(RegistryClientRetry, RetryAfterIsHonouredButCapped) {
  ClientOptions options;
  options.maxBackoff = std::chrono::milliseconds(2000);
  ScriptedClient scripted(options);
  scripted.script->replies.push_back(reply(429, "", {{"Retry-After", "1"}}));
  scripted.script->replies.push_back(reply(429, "", {{"Retry-After", "3600"}}));
  scripted.script->replies.push_back(reply(200, kOneTag));
  ASSERT_TRUE(scripted.client->listTags("app"));
  EXPECT_EQ(*scripted.sleeps, (std::vector<long long>{1000, 2000}));
}

TEST(RegistryClientRetry, ClientErrorsAndNetworkErrorsAreNotRetried) {
  ScriptedClient notFound;
  notFound.script->replies.push_back(
      reply(404, R"({"errors":[{"code":"NAME_UNKNOWN","message":"repository name not known"}]})"));
  auto missing = notFound.client->listTags("app");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ErrorKind::NotFound);
  EXPECT_NE(missing.error().message.find("HTTP 404 NAME_UNKNOWN"), std::string::npos);
  EXPECT_TRUE(notFound.sleeps->empty());

  ScriptedClient offline;
  offline.script->replies.push_back(makeError(ErrorKind::Io, "registry registry.test: refused"));
  auto failed = offline.client->listTags("app");
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().kind, ErrorKind::Io);
  EXPECT_EQ(offline.script->sent.size(), 1u);
}

}  // namespace
}  // namespace tb::registry::test
