// Checkpoints must restore bit-identical tensors and refuse files that are
// not, or no longer, whole.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "training/checkpoint.hpp"
#include "tb/common/atomic_file.hpp"

namespace {

using tb::engine::Checkpoint;

std::filesystem::path scratch(const char* name) {
  const auto dir = std::filesystem::temp_directory_path() / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

Checkpoint sample() {
  at::manual_seed(1);
  Checkpoint checkpoint;
  checkpoint.step = 12;
  checkpoint.seed = 99;
  checkpoint.model = *tb::model::findPreset("tiny");
  checkpoint.tensors = {{"a", at::randn({3, 4})}, {"b", at::randn({5})}};
  return checkpoint;
}

TEST(Checkpoint, RoundTripsStepSeedModelAndExactTensors) {
  const auto dir = scratch("tb_engine_checkpoint");
  const Checkpoint saved = sample();
  ASSERT_TRUE(tb::engine::saveCheckpoint(dir / "checkpoint.tbck", saved).ok());
  const auto loaded = tb::engine::loadCheckpoint(dir);  // a directory finds its file
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  EXPECT_EQ(loaded->step, 12);
  EXPECT_EQ(loaded->seed, 99U);
  EXPECT_EQ(loaded->model, saved.model);
  ASSERT_EQ(loaded->tensors.size(), 2U);
  EXPECT_TRUE(at::equal(tb::engine::findTensor(*loaded, "a"), saved.tensors[0].tensor));
  EXPECT_TRUE(at::equal(tb::engine::findTensor(*loaded, "b"), saved.tensors[1].tensor));
  EXPECT_FALSE(tb::engine::findTensor(*loaded, "c").defined());
  std::filesystem::remove_all(dir);
}

TEST(Checkpoint, TruncatedOrForeignFilesAreRefusedWithTheirPath) {
  const auto dir = scratch("tb_engine_checkpoint_bad");
  const auto file = dir / "checkpoint.tbck";
  ASSERT_TRUE(tb::engine::saveCheckpoint(file, sample()).ok());
  auto bytes = *tb::readFile(file);
  ASSERT_TRUE(tb::writeFileAtomically(file, bytes.substr(0, bytes.size() - 4)).ok());
  const auto truncated = tb::engine::loadCheckpoint(file);
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.error().message.find("truncated"), std::string::npos);
  EXPECT_NE(truncated.error().message.find(file.string()), std::string::npos);

  ASSERT_TRUE(tb::writeFileAtomically(file, "PK\x03\x04 not ours").ok());
  const auto foreign = tb::engine::loadCheckpoint(file);
  ASSERT_FALSE(foreign.ok());
  EXPECT_NE(foreign.error().message.find("not a TrainBench checkpoint"), std::string::npos);

  const auto missing = tb::engine::loadCheckpoint(dir / "nothing-here");
  EXPECT_FALSE(missing.ok());
  std::filesystem::remove_all(dir);
}

}  // namespace
