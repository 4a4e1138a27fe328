// The current time in UTC as text: run directories, benchmark folders,
// results and reports all stamp themselves the same way, and in UTC so that
// folders from machines in different zones sort together.
#pragma once

#include <string>

namespace tb {

/// strftime patterns for utcNow: ISO 8601 ("2026-11-29T23:24:06Z"), the compact
/// form that sorts in folder names ("20261129T232406Z"), and the date alone.
inline constexpr const char* kIsoUtc = "%Y-%m-%dT%H:%M:%SZ";
inline constexpr const char* kCompactUtc = "%Y%m%dT%H%M%SZ";
inline constexpr const char* kDateUtc = "%Y-%m-%d";

/// The current UTC time formatted with a strftime `pattern`.
[[nodiscard]] std::string utcNow(const char* pattern);

}  // namespace tb
