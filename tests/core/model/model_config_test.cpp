// Presets carry published shapes, so their parameter counts are checked
// against the numbers the model cards state; validation must name the field.
#include "tb/model/model_config.hpp"

#include <gtest/gtest.h>

namespace {

using tb::model::ModelConfig;

ModelConfig preset(const char* name) {
  auto config = tb::model::findPreset(name);
  EXPECT_TRUE(config.ok()) << name;
  return config.ok() ? *config : ModelConfig{};
}

TEST(ModelShapes, Llama3EightBHasItsPublishedParameterCount) {
  EXPECT_EQ(tb::model::parameterCount(preset("llama3-8b")), 8'030'261'248);
}

TEST(ModelShapes, RealArchitecturesMatchTheirModelCards) {
  EXPECT_EQ(tb::model::parameterCount(preset("llama3-70b")), 70'553'706'496);
  EXPECT_EQ(tb::model::parameterCount(preset("llama2-7b")), 6'738'415'616);
  EXPECT_EQ(tb::model::parameterCount(preset("qwen2.5-7b")), 7'615'616'512);
  EXPECT_EQ(tb::model::parameterCount(preset("mistral-7b")), 7'241'732'096);
}

TEST(ModelShapes, TinyPresetHasTheShapeOfTheIssue) {
  const ModelConfig tiny = preset("tiny");
  EXPECT_EQ(tiny.vocab, 512);
  EXPECT_EQ(tiny.dim, 64);
  EXPECT_EQ(tiny.layers, 2);
  EXPECT_EQ(tiny.heads, 4);
  EXPECT_EQ(tiny.kvHeads, 2);
  EXPECT_EQ(tiny.ffn, 192);
  EXPECT_EQ(tiny.seq, 64);
  EXPECT_EQ(tiny.batch, 4);
  // 2·512·64 + 2·(2·64·64 + 2·64·32 + 3·64·192 + 2·64) + 64
  EXPECT_EQ(tb::model::parameterCount(tiny), 65536 + 2 * (8192 + 4096 + 36864 + 128) + 64);
}

TEST(ModelShapes, QwenBiasesAreCountedOnlyWhenEnabled) {
  ModelConfig qwen = preset("qwen2.5-7b");
  const auto withBias = tb::model::parameterCount(qwen);
  qwen.qkvBias = false;
  EXPECT_EQ(withBias - tb::model::parameterCount(qwen), 28 * (3584 + 2 * 512));
}

TEST(ModelShapes, FlopsPerTokenAddsAttentionToSixN) {
  const ModelConfig small = preset("small");
  const double sixN = 6.0 * static_cast<double>(tb::model::parameterCount(small));
  EXPECT_DOUBLE_EQ(tb::model::flopsPerToken(small), sixN + 12.0 * 6 * 384 * 256);
}

TEST(ModelShapes, EveryPresetValidatesAndUnknownNamesListTheKnownOnes) {
  for (const auto& name : tb::model::presetNames()) {
    EXPECT_TRUE(tb::model::validate(preset(name.c_str())).ok()) << name;
  }
  const auto missing = tb::model::findPreset("gpt5");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, tb::ErrorKind::NotFound);
  EXPECT_NE(missing.error().message.find("gpt5"), std::string::npos);
  EXPECT_NE(missing.error().message.find("llama3-8b"), std::string::npos);
}

TEST(ModelShapes, OverridesChangeOnlyTheGivenFieldsAndRenameTheModel) {
  tb::model::ModelOverrides overrides;
  overrides.layers = 3;
  overrides.seq = 128;
  const ModelConfig changed = tb::model::applyOverrides(preset("tiny"), overrides);
  EXPECT_EQ(changed.layers, 3);
  EXPECT_EQ(changed.seq, 128);
  EXPECT_EQ(changed.dim, 64);
  EXPECT_EQ(changed.name, "tiny+custom");
  EXPECT_EQ(tb::model::applyOverrides(preset("tiny"), {}).name, "tiny");
}

TEST(ModelShapes, ValidationNamesTheOptionAndItsValue) {
  const auto messageFor = [](ModelConfig config) {
    const tb::Status status = tb::model::validate(config);
    EXPECT_FALSE(status.ok());
    return status.ok() ? std::string() : status.error().message;
  };
  ModelConfig config = preset("tiny");
  config.vocab = 0;
  EXPECT_NE(messageFor(config).find("--vocab 0: must be between 1 and"), std::string::npos);
  config = preset("tiny");
  config.batch = -3;
  EXPECT_NE(messageFor(config).find("--batch -3: "), std::string::npos);
  config = preset("tiny");
  config.heads = 3;  // 64 is not divisible by 3
  EXPECT_NE(messageFor(config).find("--dim 64: not divisible by --heads 3"), std::string::npos);
  config = preset("tiny");
  config.kvHeads = 3;
  EXPECT_NE(messageFor(config).find("not a multiple of --kv-heads 3"), std::string::npos);
  config = preset("tiny");
  config.heads = 64;  // head_dim 1 cannot be rotated in pairs
  config.kvHeads = 1;
  EXPECT_NE(messageFor(config).find("--dim 64 / --heads 64 = 1: the head dimension must be even"),
            std::string::npos);
}

}  // namespace
