// A run's event files: torchtitan writes one folder per rank under a dated
// one, every writer a new file per restart, named by its start time.
#include "tensorboard_files.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace tb::logs::detail::tensorboard {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kEventFilePrefix = "events.out.tfevents.";

/// `rank_<r>` as a folder name, torchtitan's save_for_all_ranks layout.
std::optional<std::int64_t> rankOfFolder(const fs::path& folder) {
  const std::string name = folder.string();
  constexpr std::string_view kPrefix = "rank_";
  if (!name.starts_with(kPrefix) || name.size() == kPrefix.size()) return std::nullopt;
  std::int64_t rank = 0;
  const char* begin = name.data() + kPrefix.size();
  const char* stop = name.data() + name.size();
  const auto [ptr, ec] = std::from_chars(begin, stop, rank);
  if (ec != std::errc{} || ptr != stop) return std::nullopt;
  return rank;
}

struct EventFile {
  fs::path path;
  std::uint64_t createdSeconds = 0;  ///< the <unix seconds> of the file name
  std::optional<std::int64_t> rank;
};

std::uint64_t secondsInName(std::string_view name) {
  name.remove_prefix(kEventFilePrefix.size());
  std::uint64_t seconds = 0;
  std::from_chars(name.data(), name.data() + name.size(), seconds);
  return seconds;
}

}  // namespace

Expected<std::vector<fs::path>> eventFiles(const fs::path& path) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (!fs::exists(status)) {
    return makeError(ErrorKind::NotFound, path.string() + ": no such file or folder");
  }
  if (!fs::is_directory(status)) return std::vector<fs::path>{path};

  std::vector<EventFile> found;
  fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(kEventFilePrefix)) continue;
    std::error_code fileEc;
    if (!it->is_regular_file(fileEc)) continue;
    EventFile file{it->path(), secondsInName(name), std::nullopt};
    // The outermost rank_<r> folder below `path` (a folder named by the
    // user is read whole, so pointing at rank_3/ reads rank 3).
    for (const auto& folder : it->path().lexically_relative(path).parent_path()) {
      if ((file.rank = rankOfFolder(folder))) break;
    }
    found.push_back(std::move(file));
  }
  if (ec) {
    return makeError(ErrorKind::Io, path.string() + ": cannot list the folder: " + ec.message());
  }
  if (found.empty()) {
    return makeError(ErrorKind::NotFound, path.string() +
                                              ": expected events.out.tfevents.* files in the "
                                              "folder or its subfolders, found none");
  }

  // Every rank logs the same metrics; reading all of them would count each
  // step once per rank.
  std::optional<std::int64_t> lowestRank;
  for (const auto& file : found) {
    if (file.rank && (!lowestRank || *file.rank < *lowestRank)) lowestRank = file.rank;
  }
  std::erase_if(found,
                [&](const EventFile& file) { return file.rank && *file.rank != *lowestRank; });
  std::sort(found.begin(), found.end(), [](const EventFile& a, const EventFile& b) {
    if (a.createdSeconds != b.createdSeconds) return a.createdSeconds < b.createdSeconds;
    if (a.path.filename() != b.path.filename()) return a.path.filename() < b.path.filename();
    return a.path < b.path;
  });
  std::vector<fs::path> paths;
  paths.reserve(found.size());
  for (auto& file : found) paths.push_back(std::move(file.path));
  return paths;
}

}  // namespace tb::logs::detail::tensorboard
