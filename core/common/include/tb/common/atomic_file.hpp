// Whole-file writes that a reader never sees half done: the content goes to a
// temporary file in the same directory, is flushed, and is renamed over the
// target (rename(2) is atomic within one filesystem).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "tb/common/expected.hpp"

namespace tb {

/// The kind of a failure to write or create a path with errno `code`:
/// BadInput (exit 2) when the path names the wrong kind of thing, a folder
/// where a file goes or a file where a folder goes, which the user can fix
/// by giving another path; Io (exit 1) for the rest (a full disk, a
/// read-only filesystem, a file-size limit, no permission).
[[nodiscard]] ErrorKind writeFailureKind(int code);

/// Writes `content` to `path` atomically; creates missing parent directories.
Status writeFileAtomically(const std::filesystem::path& path, std::string_view content);

/// Reads a whole file; the error names the path and the reason.
Expected<std::string> readFile(const std::filesystem::path& path);

}  // namespace tb
