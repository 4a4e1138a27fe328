// The spellings of --profile, --dtype and --recompute are a CLI contract; a
// bad value must come back as bad input that quotes it.
#include "tb/memory/memory_options.hpp"

#include <gtest/gtest.h>

namespace tb::memory {
namespace {

TEST(MemoryOptions, ParsesEveryProfileAndRoundTripsItsName) {
  for (const char* name : {"engine", "megatron", "deepspeed", "fsdp", "torchtitan"}) {
    auto profile = parseProfile(name);
    ASSERT_TRUE(profile.ok()) << name;
    EXPECT_EQ(toString(*profile), name);
  }
}

TEST(MemoryOptions, UnknownProfileIsBadInputNamingTheValue) {
  auto profile = parseProfile("colossal");
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.error().kind, ErrorKind::BadInput);
  EXPECT_NE(profile.error().message.find("'colossal'"), std::string::npos);
}

TEST(MemoryOptions, ParsesRecomputePoliciesIncludingLayerCounts) {
  EXPECT_EQ(*parseRecompute("none"), (RecomputePolicy{RecomputeKind::None, 0}));
  EXPECT_EQ(*parseRecompute("selective"), (RecomputePolicy{RecomputeKind::Selective, 0}));
  EXPECT_EQ(*parseRecompute("full"), (RecomputePolicy{RecomputeKind::Full, 0}));
  EXPECT_EQ(*parseRecompute("layers:12"), (RecomputePolicy{RecomputeKind::Layers, 12}));
  EXPECT_EQ(toString(*parseRecompute("layers:3")), "layers:3");
  EXPECT_EQ(*parseRecompute("selective:core_attn"), (RecomputePolicy{RecomputeKind::Selective, 0}));
  EXPECT_EQ(*parseRecompute("selective:mlp_act,layernorm"),
            (RecomputePolicy{RecomputeKind::Selective, 0, model::kNorms | model::kMlpActivation}));
  EXPECT_EQ(*parseRecompute("layers:2+selective"),
            (RecomputePolicy{RecomputeKind::Layers, 2, model::kCoreAttention}));
  EXPECT_EQ(toString(*parseRecompute("layers:2+selective:layernorm")),
            "layers:2+selective:layernorm");
  EXPECT_EQ(
      *parseRecompute("selective:head,core_attn"),
      (RecomputePolicy{RecomputeKind::Selective, 0, model::kCoreAttention | model::kOutputHead}));
  EXPECT_EQ(toString(*parseRecompute("layers:6+selective:head,mlp_act")),
            "layers:6+selective:mlp_act,head");
}

TEST(MemoryOptions, EngineRecomputeIsAutoOrWhatTheEngineBlocksRun) {
  const auto automatic = parseEngineRecompute("auto");
  ASSERT_TRUE(automatic.ok());
  EXPECT_FALSE(automatic->has_value());
  for (const char* text : {"none", "selective", "selective:core_attn,layernorm,mlp_act,head",
                           "full", "layers:3", "layers:1+selective:core_attn,mlp_act"}) {
    const auto policy = parseEngineRecompute(text);
    ASSERT_TRUE(policy.ok()) << text;
    ASSERT_TRUE(policy->has_value()) << text;
    EXPECT_EQ(**policy, *parseRecompute(text)) << text;
  }
  // The frameworks' policies parse for the predictor but are not the engine's.
  for (const char* text : {"op", "every:2", "uniform:4", "torchtitan:op"}) {
    ASSERT_TRUE(parseRecompute(text).ok()) << text;
    const auto policy = parseEngineRecompute(text);
    ASSERT_FALSE(policy.ok()) << text;
    EXPECT_EQ(policy.error().kind, ErrorKind::BadInput);
    EXPECT_NE(policy.error().message.find("'" + std::string(text) + "'"), std::string::npos)
        << policy.error().message;
    EXPECT_NE(policy.error().message.find("--recompute"), std::string::npos);
  }
  EXPECT_FALSE(parseEngineRecompute("layers:x").ok());
}

TEST(MemoryOptions, MalformedLayerCountsAreRefused) {
  for (const char* text :
       {"layers:", "layers:-1", "layers:2x", "layers:x", "auto", "Full",
        "selective:", "selective:attn", "selective:mlp_act,mlp_act", "selective:head,head",
        "selective:heads", "layers:1+", "none+selective"}) {
    auto policy = parseRecompute(text);
    ASSERT_FALSE(policy.ok()) << text;
    EXPECT_NE(policy.error().message.find(std::string("'") + text + "'"), std::string::npos);
  }
}

TEST(MemoryOptions, DtypesHaveTheirElementSizes) {
  EXPECT_EQ(bytesOf(*parseDType("fp32")), 4);
  EXPECT_EQ(bytesOf(*parseDType("bf16")), 2);
  EXPECT_EQ(bytesOf(*parseDType("fp16")), 2);
  EXPECT_FALSE(parseDType("fp8").ok());
}

TEST(MemoryOptions, ParallelLayoutValidationNamesTheFlag) {
  ParallelConfig parallel;
  parallel.zero = 4;
  auto status = validate(parallel);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("--zero"), std::string::npos);
  parallel.zero = 0;
  parallel.tp = 0;
  status = validate(parallel);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("--tp: 0"), std::string::npos);
}

}  // namespace
}  // namespace tb::memory
