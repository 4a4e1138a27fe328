// The start-up matmul probe decides which path a tuned run multiplies on, so
// a slow spell of a shared machine must not decide it: the candidate paths
// take turns pass by pass rather than each timing all of its passes at once,
// each in the threads it would train with and after an untimed pass in them.
// Checked on the order of the calls, not on times (unit tests time nothing);
// the decision is checked on block times the test supplies.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "matmul/matmul_path.hpp"
#include "matmul/matmul_probe.hpp"
#include "tb/model/model_config.hpp"

namespace {

/// ATen's path under another name, noting every product it is asked for.
class RecordingPath final : public tb::engine::MatmulPath {
 public:
  RecordingPath(std::string name, std::vector<std::string>& calls)
      : name_(std::move(name)), calls_(calls) {}
  [[nodiscard]] std::string_view name() const override { return name_; }
  [[nodiscard]] at::Tensor linear(const at::Tensor& x, const at::Tensor& weight,
                                  const at::Tensor& bias) const override {
    calls_.push_back(name_);
    return tb::engine::atenMatmulPath().linear(x, weight, bias);
  }
  [[nodiscard]] tb::engine::LinearGradients linearGradients(const at::Tensor& gradient,
                                                            const at::Tensor& x,
                                                            const at::Tensor& weight,
                                                            bool withBias) const override {
    return tb::engine::atenLinearGradients(gradient, x, weight, withBias);
  }

 private:
  std::string name_;
  std::vector<std::string>& calls_;
};

TEST(MatmulProbe, CandidatePathsTakeTurnsPassByPass) {
  std::vector<std::string> calls;
  const RecordingPath first("first", calls);
  const RecordingPath second("second", calls);
  const auto model = *tb::model::findPreset("tiny");
  constexpr int kRepeats = 3;
  const std::vector<double> rates =
      tb::engine::probeModelProducts({&first, &second}, model, kRepeats);

  ASSERT_EQ(rates.size(), 2U);
  EXPECT_GT(rates[0], 0.0);
  EXPECT_GT(rates[1], 0.0);
  // One warm-up pass each, then the timed passes; a pass is one call per
  // product shape of the step.
  ASSERT_EQ(calls.size() % (2 * (kRepeats + 1)), 0U);
  const std::size_t pass = calls.size() / (2 * (kRepeats + 1));
  std::vector<std::string> owners;
  for (std::size_t start = 0; start < calls.size(); start += pass) {
    for (std::size_t i = start; i < start + pass; ++i) ASSERT_EQ(calls[i], calls[start]) << i;
    owners.push_back(calls[start]);
  }
  const std::vector<std::string> expected{"first", "second", "first", "second",
                                          "first", "second", "first", "second"};
  EXPECT_EQ(owners, expected);
}

/// Passes' owners in order: "arrange:X" for an arrangement, else the path
/// that ran every call of one pass over the step's products.
std::vector<std::string> passesOf(const std::vector<std::string>& calls, std::size_t pass) {
  std::vector<std::string> owners;
  for (std::size_t i = 0; i < calls.size();) {
    if (calls[i].rfind("arrange:", 0) == 0) {
      owners.push_back(calls[i++]);
      continue;
    }
    for (std::size_t j = i; j < i + pass; ++j) EXPECT_EQ(calls.at(j), calls[i]) << j;
    owners.push_back(calls[i]);
    i += pass;
  }
  return owners;
}

TEST(MatmulProbe, ArrangedPathsRaceInTheirOwnThreadsAfterAnUntimedPass) {
  std::vector<std::string> calls;
  const RecordingPath first("first", calls);
  const RecordingPath second("second", calls);
  const auto model = *tb::model::findPreset("tiny");
  const auto arrange = [&calls](const tb::engine::MatmulPath& path) {
    calls.push_back("arrange:" + std::string(path.name()));
  };
  const std::vector<double> rates =
      tb::engine::probeModelProducts({&first, &second}, model, 2, arrange);
  ASSERT_EQ(rates.size(), 2U);

  // A warm-up each, then per repeat and path an untimed and a timed pass: 10
  // passes, each one call per product shape, and 6 arrangements.
  ASSERT_EQ((calls.size() - 6) % 10, 0U);
  const std::size_t pass = (calls.size() - 6) / 10;
  const std::vector<std::string> expected{
      "arrange:first", "first",          "arrange:second", "second",          // warm-up
      "arrange:first", "first",          "first",          "arrange:second",  // repeat 1
      "second",        "second",         "arrange:first",  "first",
      "first",         "arrange:second", "second",         "second"};  // repeat 2
  EXPECT_EQ(passesOf(calls, pass), expected);
}

TEST(MatmulProbe, TheRacedBlocksAreRecordedAndAFasterOneDnnBlockTrainsOnOneDnn) {
  const auto model = *tb::model::findPreset("tiny");
  const auto cpu = c10::Device(c10::DeviceType::CPU);
  tb::engine::PathRace race;
  race.timeBlock = [](const tb::engine::MatmulPath& path) {
    return path.name() == "onednn" ? 1e-3 : 2e-3;
  };
  race.variant = "test: onednn has the faster block";
  const auto choice = tb::engine::chooseMatmulPath(model, cpu, true, race);
  // Whichever products were faster: oneDNN wins both races or they disagree.
  EXPECT_EQ(choice.path->name(), "onednn");
  ASSERT_EQ(choice.candidates.size(), 2U);
  for (const auto& candidate : choice.candidates) {
    EXPECT_DOUBLE_EQ(candidate.blockSeconds, candidate.path == "onednn" ? 1e-3 : 2e-3);
    EXPECT_GT(candidate.gflops, 0.0);
  }
  // Without the tuned runtime's matmul switch, ATen whatever the race says.
  EXPECT_EQ(tb::engine::chooseMatmulPath(model, cpu, false, race).path->name(), "aten");
}

using tb::engine::PathRate;

TEST(MatmulProbe, WithoutBlocksTheFasterProductsDecide) {
  EXPECT_EQ(tb::engine::fastestPath({{"aten", 260.0, 0.0}, {"onednn", 250.0, 0.0}}), "aten");
  EXPECT_EQ(tb::engine::fastestPath({{"aten", 240.0, 0.0}, {"onednn", 250.0, 0.0}}), "onednn");
  EXPECT_EQ(tb::engine::fastestPath({}), "");
}

TEST(MatmulProbe, AtenNeedsBothRacesWhereBlocksWereTimed) {
  // Both races agree: that path.
  EXPECT_EQ(tb::engine::fastestPath({{"aten", 270.0, 0.060}, {"onednn", 250.0, 0.070}}), "aten");
  EXPECT_EQ(tb::engine::fastestPath({{"aten", 240.0, 0.076}, {"onednn", 264.0, 0.072}}), "onednn");
  // They disagree, either way round: oneDNN, which keeps the step's threads.
  // The first is session 11's misjudged run shape: ATen's block ahead by a
  // slow spell, its products 10 % behind.
  EXPECT_EQ(tb::engine::fastestPath({{"aten", 240.0, 0.069}, {"onednn", 264.0, 0.073}}), "onednn");
  EXPECT_EQ(tb::engine::fastestPath({{"aten", 280.0, 0.080}, {"onednn", 200.0, 0.070}}), "onednn");
}

}  // namespace
