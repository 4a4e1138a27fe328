// A least-squares line through (predicted, measured) per profile. With one
// point, or predictions that do not spread, only a scale is fitted: an offset
// cannot be told from a scale then. A fit that would turn the slope negative
// is refused in favour of the scale alone, since more predicted memory never
// means less measured memory.
#include "tb/memory/calibration.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

#include "tb/common/atomic_file.hpp"
#include "tb/common/paths.hpp"

namespace tb::memory {
namespace {

struct Sample {
  double predicted = 0;
  double measured = 0;
};

void fitLine(const std::vector<Sample>& samples, Calibration& fit) {
  const double n = static_cast<double>(samples.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const Sample& s : samples) {
    sx += s.predicted;
    sy += s.measured;
    sxx += s.predicted * s.predicted;
    sxy += s.predicted * s.measured;
  }
  const double spread = n * sxx - sx * sx;
  if (samples.size() >= 2 && spread > 1e-9 * sxx * n) {
    const double slope = (n * sxy - sx * sy) / spread;
    if (slope > 0) {
      fit.scale = slope;
      fit.offsetBytes = static_cast<std::int64_t>(std::llround((sy - slope * sx) / n));
      return;
    }
  }
  fit.scale = sxx > 0 ? sxy / sxx : 1.0;
  fit.offsetBytes = 0;
}

void measureErrors(const std::vector<Sample>& samples, Calibration& fit) {
  double sumBefore = 0, sumAfter = 0;
  for (const Sample& s : samples) {
    const double before = std::abs(s.predicted - s.measured) / s.measured;
    const double corrected =
        static_cast<double>(fit.apply(static_cast<std::uint64_t>(std::llround(s.predicted))));
    const double after = std::abs(corrected - s.measured) / s.measured;
    sumBefore += before;
    sumAfter += after;
    fit.maxErrorBefore = std::max(fit.maxErrorBefore, before);
    fit.maxErrorAfter = std::max(fit.maxErrorAfter, after);
  }
  fit.meanErrorBefore = sumBefore / static_cast<double>(samples.size());
  fit.meanErrorAfter = sumAfter / static_cast<double>(samples.size());
}

Error malformed(const std::filesystem::path& path, const std::string& what) {
  return makeError(ErrorKind::Parse, path.string() + ": " + what);
}

}  // namespace

std::uint64_t Calibration::apply(std::uint64_t predictedBytes) const {
  const double value =
      static_cast<double>(predictedBytes) * scale + static_cast<double>(offsetBytes);
  return value <= 0 ? 0 : static_cast<std::uint64_t>(std::llround(value));
}

Expected<CalibrationSet> fitCalibrations(const std::vector<MeasuredPeak>& points) {
  std::map<Profile, std::vector<Sample>> byProfile;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const MeasuredPeak& point = points[i];
    if (point.peakBytes == 0) {
      return makeError(ErrorKind::BadInput,
                       "measurement " + std::to_string(i + 1) + ": measured peak is 0 bytes");
    }
    auto prediction = predictMemory(point.config);
    if (!prediction) {
      return makeError(ErrorKind::BadInput,
                       "measurement " + std::to_string(i + 1) + ": " + prediction.error().message);
    }
    byProfile[point.config.profile].push_back(
        {static_cast<double>(prediction->totalBytes), static_cast<double>(point.peakBytes)});
  }
  CalibrationSet set;
  for (const auto& [profile, samples] : byProfile) {
    Calibration fit;
    fit.points = static_cast<std::int64_t>(samples.size());
    fitLine(samples, fit);
    measureErrors(samples, fit);
    set[profile] = fit;
  }
  return set;
}

std::filesystem::path defaultCalibrationPath() {
  return configDirectory() / "memory-calibration.json";
}

Expected<CalibrationSet> loadCalibrations(const std::filesystem::path& path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return CalibrationSet{};
  auto text = readFile(path);
  if (!text) return text.error();
  const nlohmann::json document = nlohmann::json::parse(*text, nullptr, false);
  if (document.is_discarded() || !document.is_object()) return malformed(path, "not JSON");
  const auto profiles = document.find("profiles");
  if (profiles == document.end() || !profiles->is_object()) {
    return malformed(path, "no \"profiles\" object");
  }
  CalibrationSet set;
  for (const auto& [name, entry] : profiles->items()) {
    auto profile = parseProfile(name);
    if (!profile) return malformed(path, "unknown profile \"" + name + "\"");
    if (!entry.is_object() || !entry.contains("scale") || !entry["scale"].is_number() ||
        !entry.contains("offset_bytes") || !entry["offset_bytes"].is_number_integer()) {
      return malformed(path, "profiles." + name + " needs numeric scale and offset_bytes");
    }
    Calibration fit;
    fit.scale = entry["scale"].get<double>();
    fit.offsetBytes = entry["offset_bytes"].get<std::int64_t>();
    if (!(fit.scale > 0)) return malformed(path, "profiles." + name + ".scale must be above 0");
    fit.points = entry.value("points", std::int64_t{0});
    fit.meanErrorBefore = entry.value("mean_error_before", 0.0);
    fit.maxErrorBefore = entry.value("max_error_before", 0.0);
    fit.meanErrorAfter = entry.value("mean_error_after", 0.0);
    fit.maxErrorAfter = entry.value("max_error_after", 0.0);
    set[*profile] = fit;
  }
  return set;
}

Status saveCalibrations(const CalibrationSet& set, const std::filesystem::path& path) {
  nlohmann::ordered_json profiles = nlohmann::ordered_json::object();
  for (const auto& [profile, fit] : set) {
    profiles[toString(profile)] = {{"scale", fit.scale},
                                   {"offset_bytes", fit.offsetBytes},
                                   {"points", fit.points},
                                   {"mean_error_before", fit.meanErrorBefore},
                                   {"max_error_before", fit.maxErrorBefore},
                                   {"mean_error_after", fit.meanErrorAfter},
                                   {"max_error_after", fit.maxErrorAfter}};
  }
  const nlohmann::ordered_json document = {{"format", 1}, {"profiles", profiles}};
  return writeFileAtomically(path, document.dump(2) + "\n");
}

}  // namespace tb::memory
