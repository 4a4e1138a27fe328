// The CPU facts that results.json records about the machine. They come from
// /proc/cpuinfo rather than from the engine, so the benchmark can name the
// machine even when every run failed; the parser takes the text so tests can
// feed it other machines' files.
#pragma once

#include <string>
#include <string_view>

namespace tb::bench {

/// What /proc/cpuinfo says about the processors.
struct HostCpu {
  std::string model;      ///< "model name" (x86) or "CPU part"/"Hardware" (arm64); may be empty
  int physicalCores = 0;  ///< distinct (physical id, core id) pairs; logical CPUs if unknown
};

/// Parses the text of /proc/cpuinfo.
[[nodiscard]] HostCpu parseCpuInfo(std::string_view text);

/// Reads /proc/cpuinfo; falls back to std::thread::hardware_concurrency for the
/// cores and "unknown CPU" for the model when the file says nothing.
[[nodiscard]] HostCpu detectHostCpu();

}  // namespace tb::bench
