// Calibration recovers a known correction, reports errors before and after,
// and stores its fits as JSON that reads back the same.
#include "tb/memory/calibration.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "memory_test_shapes.hpp"

namespace tb::memory {
namespace {

std::vector<MeasuredPeak> engineSweep(double scale, double offset) {
  std::vector<MeasuredPeak> points;
  for (std::int64_t batch : {1, 2, 4}) {
    for (const char* policy : {"none", "full"}) {
      MeasuredPeak point;
      point.config.model = test::preset("tiny");
      point.config.model.batch = batch;
      point.config.recompute = *parseRecompute(policy);
      const double predicted = static_cast<double>(test::predict(point.config).totalBytes);
      point.peakBytes = static_cast<std::uint64_t>(predicted * scale + offset);
      points.push_back(point);
    }
  }
  return points;
}

std::filesystem::path scratch(const char* name) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("tb-calibration-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir / name;
}

TEST(MemoryCalibration, RecoversAKnownScaleAndOffset) {
  auto fits = fitCalibrations(engineSweep(1.1, 4096));
  ASSERT_TRUE(fits.ok());
  ASSERT_EQ(fits->count(Profile::Engine), 1u);
  const Calibration& fit = fits->at(Profile::Engine);
  EXPECT_EQ(fit.points, 6);
  EXPECT_NEAR(fit.scale, 1.1, 1e-6);
  EXPECT_NEAR(static_cast<double>(fit.offsetBytes), 4096.0, 2.0);
  EXPECT_GT(fit.meanErrorBefore, 0.05);
  EXPECT_LT(fit.meanErrorAfter, 1e-5);
  EXPECT_LE(fit.meanErrorAfter, fit.maxErrorAfter);
}

TEST(MemoryCalibration, OnePointFitsAScaleOnly) {
  auto points = engineSweep(0.9, 0);
  points.resize(1);
  auto fits = fitCalibrations(points);
  ASSERT_TRUE(fits.ok());
  const Calibration& fit = fits->at(Profile::Engine);
  EXPECT_EQ(fit.offsetBytes, 0);
  EXPECT_NEAR(fit.scale, 0.9, 1e-6);
  EXPECT_NEAR(fit.meanErrorBefore, 0.1 / 0.9, 1e-6);
}

TEST(MemoryCalibration, RefusesAZeroMeasurementNamingIt) {
  auto points = engineSweep(1.0, 0);
  points[2].peakBytes = 0;
  auto fits = fitCalibrations(points);
  ASSERT_FALSE(fits.ok());
  EXPECT_NE(fits.error().message.find("measurement 3"), std::string::npos);
}

TEST(MemoryCalibration, StoredFitsReadBackTheSame) {
  auto fits = fitCalibrations(engineSweep(1.2, 1000));
  ASSERT_TRUE(fits.ok());
  const auto path = scratch("roundtrip.json");
  ASSERT_TRUE(saveCalibrations(*fits, path).ok());
  auto loaded = loadCalibrations(path);
  ASSERT_TRUE(loaded.ok());
  const Calibration& a = fits->at(Profile::Engine);
  const Calibration& b = loaded->at(Profile::Engine);
  EXPECT_DOUBLE_EQ(a.scale, b.scale);
  EXPECT_EQ(a.offsetBytes, b.offsetBytes);
  EXPECT_DOUBLE_EQ(a.meanErrorAfter, b.meanErrorAfter);
  EXPECT_EQ(b.apply(1000000), a.apply(1000000));
}

TEST(MemoryCalibration, MissingFileIsAnEmptySetAndAMalformedOneAParseError) {
  auto missing = loadCalibrations(scratch("does-not-exist.json"));
  ASSERT_TRUE(missing.ok());
  EXPECT_TRUE(missing->empty());
  const auto path = scratch("malformed.json");
  std::ofstream(path) << R"({"profiles": {"engine": {"scale": -1, "offset_bytes": 0}}})";
  auto loaded = loadCalibrations(path);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().kind, ErrorKind::Parse);
  EXPECT_NE(loaded.error().message.find(path.string()), std::string::npos);
}

TEST(MemoryCalibration, DefaultPathIsInTheConfigDirectory) {
  EXPECT_EQ(defaultCalibrationPath().filename(), "memory-calibration.json");
}

}  // namespace
}  // namespace tb::memory
