// What a reader that comes back to a file knows of it, to see it grown,
// truncated or replaced: the device and inode name the file, the size and
// the modification time say what it holds.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <optional>

namespace tb::logs::detail {

struct FileIdentity {
  dev_t device = 0;
  ino_t inode = 0;
  std::uint64_t size = 0;
  std::int64_t modifiedNs = 0;

  /// The same file, whatever it holds now.
  [[nodiscard]] bool sameFile(const FileIdentity& other) const noexcept {
    return device == other.device && inode == other.inode;
  }
};

/// Empty when the path cannot be looked at (gone, or not allowed).
[[nodiscard]] inline std::optional<FileIdentity> identityOf(const std::filesystem::path& file) {
  struct stat info {};
  if (::stat(file.c_str(), &info) != 0) return std::nullopt;
  return FileIdentity{.device = info.st_dev,
                      .inode = info.st_ino,
                      .size = static_cast<std::uint64_t>(info.st_size),
                      .modifiedNs = static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1000000000 +
                                    info.st_mtim.tv_nsec};
}

}  // namespace tb::logs::detail
