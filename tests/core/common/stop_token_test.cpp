// Tokens are what every long piece of core work polls: a default one never
// stops, a source's tokens all see its request, and a token outlives its source.
#include "tb/common/stop_token.hpp"

#include <gtest/gtest.h>

#include <optional>

namespace {

TEST(StopToken, ADefaultTokenNeverStops) {
  const tb::StopToken token;
  EXPECT_FALSE(token.stopPossible());
  EXPECT_FALSE(token.stopRequested());
}

TEST(StopToken, EveryTokenAndCopyOfASourceSeesItsRequest) {
  const tb::StopSource source;
  const tb::StopSource copy = source;
  const tb::StopToken token = source.token();
  EXPECT_TRUE(token.stopPossible());
  EXPECT_FALSE(token.stopRequested());
  copy.requestStop();
  EXPECT_TRUE(token.stopRequested());
  EXPECT_TRUE(source.stopRequested());
}

TEST(StopToken, ATokenOutlivesItsSource) {
  std::optional<tb::StopSource> source(std::in_place);
  const tb::StopToken token = source->token();
  source->requestStop();
  source.reset();
  EXPECT_TRUE(token.stopRequested());
}

TEST(StopToken, AWatchingTokenFollowsItsFlag) {
  static std::atomic<bool> flag{false};
  const tb::StopToken token = tb::StopToken::watching(flag);
  EXPECT_FALSE(token.stopRequested());
  flag = true;
  EXPECT_TRUE(token.stopRequested());
}

}  // namespace
