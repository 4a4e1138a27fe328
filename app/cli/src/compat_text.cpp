// The status is printed first and in capitals because it is what a person
// scans for; provenance is printed next to each host value because a verdict
// for the wrong driver (say, a login node's) is worse than none.
#include "compat_text.hpp"

#include <algorithm>
#include <ostream>

#include "output.hpp"

namespace tb::cli {
namespace {

std::string upper(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) {
    return static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  });
  return out;
}

std::string originText(ValueOrigin origin, const JudgedHost& host) {
  switch (origin) {
    case ValueOrigin::CommandLine: return "from the command line";
    case ValueOrigin::Detected:
      return "detected by " +
             std::string(host.detected ? compat::toString(host.detected->source) : "detection");
    case ValueOrigin::NotDetected: return "not detected";
    case ValueOrigin::System: return "this machine";
    case ValueOrigin::Default: return "default";
  }
  return "unknown";
}

void printHost(std::ostream& out, const JudgedHost& host, std::string_view gpuClass) {
  const compat::CompatQuery& query = host.query;
  out << "Driver:   ";
  if (query.driver) {
    out << query.driver->text() << " (" << originText(host.driverOrigin, host) << ")\n";
  } else {
    out << "none: no NVIDIA driver on this machine\n";
  }
  out << "GPU:      ";
  if (query.gpuName.empty()) {
    out << "unknown (" << originText(host.gpuOrigin, host) << "; give --gpu NAME)\n";
  } else {
    out << query.gpuCount << " x " << query.gpuName << ", " << gpuClass << " ("
        << originText(host.gpuOrigin, host) << ")\n";
  }
  out << "CPU:      " << catalog::toString(query.arch) << " (" << originText(host.archOrigin, host)
      << ")\n";

  std::vector<std::string> notes = host.notes;
  // What detection tried only matters when it did not find the driver.
  if (host.detected && !host.detected->driver) {
    notes.insert(notes.end(), host.detected->notes.begin(), host.detected->notes.end());
  }
  printBulletList(out, "Host notes:", notes);
}

}  // namespace

void printVerdict(std::ostream& out, const ReleaseVerdict& result, const JudgedHost& host) {
  const catalog::Release& release = *result.release;
  const compat::CompatVerdict& verdict = result.verdict;

  out << "Status:   " << upper(compat::toString(verdict.status)) << '\n'
      << "Image:    " << release.tag << " (" << release.image << ")\n"
      << "Needs:    CUDA " << release.cudaVersion << ", driver >= " << release.requiredDriverMajor
      << '\n';
  printHost(out, host, compat::toString(verdict.gpuClass));
  out << '\n';
  printBulletList(out, "Reasons:", verdict.reasons);
  printBulletList(out, "Warnings:", verdict.warnings);
  printBulletList(out, "What to do:", result.nextSteps);
}

void printReport(std::ostream& out, const catalog::Catalog& catalog,
                 const std::vector<ReleaseVerdict>& results, const JudgedHost& host) {
  out << "Compatibility of the training-nv-pytorch releases with this host\n\n";
  const std::string_view gpuClass =
      results.empty() ? "unknown" : compat::toString(results.front().verdict.gpuClass);
  printHost(out, host, gpuClass);
  out << "Catalog:  " << catalog.catalogVersion << '\n' << '\n';

  TextTable table({"TAG", "CUDA", "DRIVER", "STATUS", "MAIN REASON"});
  int supported = 0;
  int forwardCompatible = 0;
  for (const auto& result : results) {
    const auto status = result.verdict.status;
    supported += status == compat::VerdictStatus::Supported ? 1 : 0;
    forwardCompatible += status == compat::VerdictStatus::ForwardCompatible ? 1 : 0;
    table.addRow({result.release->tag, result.release->cudaVersion,
                  ">= " + std::to_string(result.release->requiredDriverMajor),
                  std::string(compat::toString(status)),
                  result.verdict.reasons.empty() ? "-" : result.verdict.reasons.front()});
  }
  table.print(out);
  out << '\n'
      << supported + forwardCompatible << " of " << results.size() << " releases run on this host ("
      << supported << " supported, " << forwardCompatible << " forward-compatible).\n"
      << "Reasons, warnings and what to do for one release: trainbench compat --image TAG\n";
}

}  // namespace tb::cli
