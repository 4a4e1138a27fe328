// Absent values are JSON null rather than missing keys or empty strings, so a
// script can tell "no driver on this host" from a field it forgot to read.
#include "compat_json.hpp"

namespace tb::cli {
namespace {

Json optionalText(const std::string& text) { return text.empty() ? Json(nullptr) : Json(text); }

Json driverJson(const std::optional<catalog::DriverVersion>& driver) {
  return driver ? Json(driver->text()) : Json(nullptr);
}

}  // namespace

Json hostToJson(const JudgedHost& host) {
  std::vector<std::string> notes = host.notes;
  Json out;
  if (host.detected) {
    const compat::HostInfo& detected = *host.detected;
    notes.insert(notes.end(), detected.notes.begin(), detected.notes.end());
    out["source"] = compat::toString(detected.source);
    out["detected"] = true;
    out["summary"] = detected.summary();
    out["driver"] = driverJson(detected.driver);
    out["gpus"] = detected.gpuNames;
    out["machine"] = detected.machine;
  } else {
    out["source"] = "command-line";
    out["detected"] = false;
    out["summary"] = "driver and GPU given on the command line";
  }
  out["origin"] = Json{
      {"driver", toString(host.driverOrigin)},
      {"gpu", toString(host.gpuOrigin)},
      {"gpu_count", toString(host.gpuCountOrigin)},
      {"arch", toString(host.archOrigin)},
  };
  out["notes"] = std::move(notes);
  return out;
}

Json verdictToJson(const ReleaseVerdict& result, const JudgedHost& host) {
  const catalog::Release& release = *result.release;
  const compat::CompatVerdict& verdict = result.verdict;
  const compat::CompatQuery& query = host.query;

  Json out{
      {"image", release.tag},
      {"image_reference", release.image},
      {"cuda", release.cudaVersion},
      {"required_driver", release.requiredDriverMajor},
      {"driver", driverJson(query.driver)},
      {"gpu", optionalText(query.gpuName)},
      {"gpu_class", compat::toString(verdict.gpuClass)},
      {"gpu_count", query.gpuCount},
      {"arch", catalog::toString(query.arch)},
      {"status", compat::toString(verdict.status)},
      {"reasons", verdict.reasons},
      {"warnings", verdict.warnings},
  };
  if (verdict.status == compat::VerdictStatus::Unsupported && verdict.upgradeTo) {
    out["upgrade_to"] = verdict.upgradeTo->text();
  }
  out["next_steps"] = result.nextSteps;
  out["host"] = hostToJson(host);
  return out;
}

Json reportToJson(const std::vector<ReleaseVerdict>& results, const JudgedHost& host) {
  Json entries = Json::array();
  for (const auto& result : results) entries.push_back(verdictToJson(result, host));
  return Json{{"host", hostToJson(host)}, {"results", std::move(entries)}};
}

}  // namespace tb::cli
