// The start-up matmul probe decides which path a tuned run multiplies on, so
// a slow spell of a shared machine must not decide it: the candidate paths
// take turns pass by pass rather than each timing all of its passes at once.
// Checked on the order of the calls, not on times (unit tests time nothing).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "matmul_path.hpp"
#include "matmul_probe.hpp"
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

}  // namespace
