// The challenge and Link formats as real registries send them (Docker Hub,
// distribution 2.8 silly auth, distribution v3 paging).
#include <gtest/gtest.h>

#include "tb/registry/http_headers.hpp"

namespace tb::registry {
namespace {

TEST(AuthChallenge, BearerChallengeFieldsAreRead) {
  const AuthChallenge challenge = parseAuthChallenge(
      R"(Bearer realm="https://auth.docker.io/token",service="registry.docker.io",)"
      R"(scope="repository:samalba/my-app:pull,push")");
  EXPECT_EQ(challenge.scheme, AuthScheme::Bearer);
  EXPECT_EQ(challenge.realm, "https://auth.docker.io/token");
  EXPECT_EQ(challenge.service, "registry.docker.io");
  EXPECT_EQ(challenge.scope, "repository:samalba/my-app:pull,push");
}

TEST(AuthChallenge, BasicChallengeAndUnknownSchemeAreTold) {
  EXPECT_EQ(parseAuthChallenge(R"(Basic realm="basic-realm")").scheme, AuthScheme::Basic);
  EXPECT_EQ(parseAuthChallenge("Negotiate").scheme, AuthScheme::Unknown);
  EXPECT_EQ(parseAuthChallenge("").scheme, AuthScheme::Unknown);
}

TEST(AuthChallenge, SchemeCaseAndUnquotedValuesAreAccepted) {
  const AuthChallenge challenge =
      parseAuthChallenge("bearer realm=https://t.test/token, service=x");
  EXPECT_EQ(challenge.scheme, AuthScheme::Bearer);
  EXPECT_EQ(challenge.realm, "https://t.test/token");
  EXPECT_EQ(challenge.service, "x");
}

TEST(LinkHeader, NextTargetIsFound) {
  EXPECT_EQ(parseNextLink(R"(</v2/app/tags/list?n=2&last=b>; rel="next")"),
            "/v2/app/tags/list?n=2&last=b");
}

TEST(LinkHeader, OtherRelationsAreSkipped) {
  EXPECT_EQ(parseNextLink(R"(</first>; rel="first", </second>; rel="next")"), "/second");
  EXPECT_FALSE(parseNextLink(R"(</prev>; rel="prev")"));
  EXPECT_FALSE(parseNextLink("garbage"));
}

TEST(UrlEncode, ScopeSeparatorsAreEscaped) {
  EXPECT_EQ(urlEncode("repository:a/b:pull"), "repository%3Aa%2Fb%3Apull");
}

}  // namespace
}  // namespace tb::registry
