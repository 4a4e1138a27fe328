// Whole-file writes that a reader never sees half done: the content goes to a
// temporary file in the same directory, is flushed, and is renamed over the
// target (rename(2) is atomic within one filesystem).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "tb/common/expected.hpp"

namespace tb {

/// Writes `content` to `path` atomically; creates missing parent directories.
Status writeFileAtomically(const std::filesystem::path& path, std::string_view content);

/// Reads a whole file; the error names the path and the reason.
Expected<std::string> readFile(const std::filesystem::path& path);

}  // namespace tb
