// The auth flow request by request: anonymous first, then what the 401 asks
// for; tokens cached per scope until they expire; credentials sent only where
// asked and never echoed in an error.
#include <gtest/gtest.h>

#include "scripted_transport.hpp"

namespace tb::registry::test {
namespace {

constexpr const char* kTags = R"({"name":"app","tags":["1"]})";

HttpResponse bearerChallenge(const std::string& realm = "https://auth.test/token") {
  return reply(
      401, R"({"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]})",
      {{"WWW-Authenticate",
        "Bearer realm=\"" + realm + "\",service=\"registry.test\",scope=\"repository:app:pull\""}});
}

HttpResponse tokenReply(const std::string& token, int expiresIn) {
  return reply(200,
               R"({"token":")" + token + R"(","expires_in":)" + std::to_string(expiresIn) + "}");
}

TEST(RegistryClientAuth, AnonymousRequestCarriesNoAuthorization) {
  ScriptedClient scripted;
  scripted.script->replies.push_back(reply(200, kTags));
  ASSERT_TRUE(scripted.client->listTags("app"));
  ASSERT_EQ(scripted.script->sent.size(), 1u);
  EXPECT_EQ(scripted.script->sent[0].url, "https://registry.test/v2/app/tags/list");
  EXPECT_EQ(authorizationOf(scripted.script->sent[0]), "");
}

TEST(RegistryClientAuth, BearerChallengeFetchesTokenAndRetries) {
  ScriptedClient scripted;
  scripted.script->replies.push_back(bearerChallenge());
  scripted.script->replies.push_back(tokenReply("tok1", 300));
  scripted.script->replies.push_back(reply(200, kTags));
  auto tags = scripted.client->listTags("app");
  ASSERT_TRUE(tags) << tags.error().message;
  const auto& sent = scripted.script->sent;
  ASSERT_EQ(sent.size(), 3u);
  EXPECT_EQ(sent[1].url,
            "https://auth.test/token?service=registry.test&scope=repository%3Aapp%3Apull");
  EXPECT_EQ(authorizationOf(sent[1]), "");
  EXPECT_EQ(authorizationOf(sent[2]), "Bearer tok1");
}

TEST(RegistryClientAuth, CachedTokenIsReusedUntilItExpires) {
  auto clock = std::make_shared<std::chrono::steady_clock::time_point>();
  ClientOptions options;
  options.now = [clock] { return *clock; };
  ScriptedClient scripted(options);
  scripted.script->replies.push_back(bearerChallenge());
  scripted.script->replies.push_back(tokenReply("tok1", 60));
  scripted.script->replies.push_back(reply(200, kTags));
  scripted.script->replies.push_back(reply(200, kTags));
  ASSERT_TRUE(scripted.client->listTags("app"));
  ASSERT_TRUE(scripted.client->listTags("app"));
  EXPECT_EQ(scripted.client->tokenRequests(), 1);
  EXPECT_EQ(authorizationOf(scripted.script->sent[3]), "Bearer tok1");

  *clock += std::chrono::seconds(61);
  scripted.script->replies.push_back(bearerChallenge());
  scripted.script->replies.push_back(tokenReply("tok2", 60));
  scripted.script->replies.push_back(reply(200, kTags));
  ASSERT_TRUE(scripted.client->listTags("app"));
  EXPECT_EQ(scripted.client->tokenRequests(), 2);
  EXPECT_EQ(authorizationOf(scripted.script->sent[4]), "") << "an expired token must not be sent";
  EXPECT_EQ(authorizationOf(scripted.script->sent.back()), "Bearer tok2");
}

TEST(RegistryClientAuth, CredentialsGoToTokenEndpointAsBasic) {
  ClientOptions options;
  options.credentials = Credentials{"alice", "s3cret"};
  ScriptedClient scripted(options);
  scripted.script->replies.push_back(bearerChallenge());
  scripted.script->replies.push_back(reply(200, R"({"access_token":"tok"})"));
  scripted.script->replies.push_back(reply(200, kTags));
  ASSERT_TRUE(scripted.client->listTags("app"));
  EXPECT_EQ(authorizationOf(scripted.script->sent[0]), "") << "credentials sent unasked";
  EXPECT_EQ(authorizationOf(scripted.script->sent[1]), "Basic YWxpY2U6czNjcmV0");
  EXPECT_EQ(authorizationOf(scripted.script->sent[2]), "Bearer tok");
}

TEST(RegistryClientAuth, BasicChallengeIsAnsweredWithCredentials) {
  ClientOptions options;
  options.credentials = Credentials{"alice", "s3cret"};
  ScriptedClient scripted(options);
  scripted.script->replies.push_back(reply(401, "", {{"WWW-Authenticate", "Basic realm=\"r\""}}));
  scripted.script->replies.push_back(reply(200, kTags));
  ASSERT_TRUE(scripted.client->listTags("app"));
  EXPECT_EQ(authorizationOf(scripted.script->sent[1]), "Basic YWxpY2U6czNjcmV0");
}

TEST(RegistryClientAuth, RejectedCredentialsErrorNamesCodeButNeverTheSecret) {
  ClientOptions options;
  options.credentials = Credentials{"alice", "s3cret-pw"};
  ScriptedClient scripted(options);
  scripted.script->replies.push_back(bearerChallenge());
  scripted.script->replies.push_back(
      reply(401, R"({"errors":[{"code":"UNAUTHORIZED","message":"bad password"}]})"));
  auto tags = scripted.client->listTags("app");
  ASSERT_FALSE(tags);
  EXPECT_EQ(tags.error().kind, ErrorKind::BadInput);
  const std::string& message = tags.error().message;
  EXPECT_NE(message.find("HTTP 401 UNAUTHORIZED"), std::string::npos) << message;
  EXPECT_NE(message.find("registry.test"), std::string::npos) << message;
  EXPECT_EQ(message.find("s3cret-pw"), std::string::npos) << message;
  EXPECT_EQ(message.find("YWxpY2U6czNjcmV0LXB3"), std::string::npos) << message;
}

TEST(RegistryClientAuth, PlainHttpTokenRealmIsRefusedUnlessAllowed) {
  ScriptedClient strict;
  strict.script->replies.push_back(bearerChallenge("http://auth.test/token"));
  auto refused = strict.client->listTags("app");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("not an HTTPS URL"), std::string::npos);

  ClientOptions options;
  options.allowPlainHttpRealm = true;
  ScriptedClient loose(options);
  loose.script->replies.push_back(bearerChallenge("http://auth.test/token"));
  loose.script->replies.push_back(tokenReply("t", 60));
  loose.script->replies.push_back(reply(200, kTags));
  EXPECT_TRUE(loose.client->listTags("app"));
}

TEST(RegistryClientAuth, TokenResponseWithoutTokenIsAnError) {
  ScriptedClient scripted;
  scripted.script->replies.push_back(bearerChallenge());
  scripted.script->replies.push_back(reply(200, R"({"expires_in":60})"));
  auto tags = scripted.client->listTags("app");
  ASSERT_FALSE(tags);
  EXPECT_NE(tags.error().message.find("no token"), std::string::npos) << tags.error().message;
}

}  // namespace
}  // namespace tb::registry::test
