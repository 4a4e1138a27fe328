// Retry waits are sliced so that Cancel does not sit out an eight-second
// backoff; the transport checks the same token inside libcurl. A tag whose
// manifest cannot be read (deleted between list and read) is listed without
// badges instead of failing the whole refresh; losing the server is not.
#include "ui/image/registry_lookup.h"

#include <algorithm>
#include <cctype>
#include <thread>

#include "tb/registry/image_reference.hpp"

namespace tb::ui {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kSleepSlice{50};

void sleepUnlessCancelled(milliseconds delay, const tb::StopToken& cancel) {
  const auto deadline = std::chrono::steady_clock::now() + delay;
  while (!cancel.stopRequested() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::min(kSleepSlice, delay));
  }
}

bool isDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

Expected<std::vector<std::string>> architecturesOf(tb::registry::RegistryClient& client,
                                                   const std::string& repository,
                                                   const std::string& tag) {
  auto manifest = client.fetchManifest(repository, tag);
  if (!manifest) return std::move(manifest).error();
  std::vector<std::string> architectures;
  if (manifest->isIndex) {
    for (const tb::registry::Platform& platform : manifest->platforms) {
      if (platform.os != "unknown") architectures.push_back(platform.architecture);
    }
  } else {
    auto config = client.fetchImageConfig(repository, manifest->configDigest);
    if (!config) return std::move(config).error();
    architectures.push_back(config->architecture);
  }
  std::sort(architectures.begin(), architectures.end());
  architectures.erase(std::unique(architectures.begin(), architectures.end()), architectures.end());
  return architectures;
}

}  // namespace

bool tagOlderThan(const std::string& a, const std::string& b) {
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < a.size() && j < b.size()) {
    if (isDigit(a[i]) && isDigit(b[j])) {
      std::size_t endA = i;
      std::size_t endB = j;
      while (endA < a.size() && isDigit(a[endA])) ++endA;
      while (endB < b.size() && isDigit(b[endB])) ++endB;
      // Compare as numbers without overflow: strip zeros, then length, then text.
      std::string_view numA(a.data() + i, endA - i);
      std::string_view numB(b.data() + j, endB - j);
      numA.remove_prefix(std::min(numA.find_first_not_of('0'), numA.size()));
      numB.remove_prefix(std::min(numB.find_first_not_of('0'), numB.size()));
      if (numA.size() != numB.size()) return numA.size() < numB.size();
      if (numA != numB) return numA < numB;
      i = endA;
      j = endB;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

Expected<std::unique_ptr<tb::registry::RegistryClient>> makeLookupClient(
    const RegistryLookupTarget& target, const tb::StopToken& cancel) {
  if (target.host.empty()) return makeError(ErrorKind::BadInput, "no registry host given");
  if (target.plainHttp && !tb::registry::isLoopbackRegistry(target.host)) {
    return makeError(ErrorKind::BadInput,
                     "plain HTTP is allowed only for a registry on this machine (127.0.0.1, "
                     "localhost, ::1), not '" +
                         target.host + "'");
  }
  tb::registry::TransportOptions transport;
  transport.connectTimeout = milliseconds(10'000);
  transport.totalTimeout = milliseconds(30'000);
  transport.verifyTls = !target.plainHttp;
  transport.cancel = cancel;
  tb::registry::ClientOptions options;
  options.credentials = target.credentials;
  options.sleep = [cancel](milliseconds delay) { sleepUnlessCancelled(delay, cancel); };
  if (target.plainHttp) {
    options.scheme = tb::registry::Scheme::Http;
    options.allowPlainHttpRealm = true;
  }
  return std::make_unique<tb::registry::RegistryClient>(target.host, std::move(options),
                                                        tb::registry::makeCurlTransport(transport));
}

Expected<std::vector<TagPlatforms>> listTagsWithPlatforms(tb::registry::RegistryClient& client,
                                                          const std::string& repository,
                                                          const tb::StopToken& cancel,
                                                          const tb::ProgressFn& progress) {
  auto tags = client.listTags(repository);
  if (!tags) return std::move(tags).error();
  std::vector<TagPlatforms> rows;
  rows.reserve(tags->size());
  for (std::string& tag : *tags) rows.push_back({std::move(tag), {}, false});
  std::sort(rows.begin(), rows.end(), [](const TagPlatforms& a, const TagPlatforms& b) {
    return tagOlderThan(b.tag, a.tag);  // newest first
  });
  const int total = static_cast<int>(std::min(rows.size(), kMaxTagsWithPlatforms));
  for (int done = 0; done < total; ++done) {
    if (cancel.stopRequested()) {
      return makeError(ErrorKind::Cancelled, "registry " + client.registry() + ": cancelled");
    }
    if (progress) progress({done, total, rows[static_cast<std::size_t>(done)].tag});
    TagPlatforms& row = rows[static_cast<std::size_t>(done)];
    auto architectures = architecturesOf(client, repository, row.tag);
    if (architectures) {
      row.architectures = std::move(*architectures);
      row.platformsKnown = true;
    } else if (architectures.error().kind == ErrorKind::Io ||
               architectures.error().kind == ErrorKind::Cancelled) {
      return std::move(architectures).error();
    }
  }
  if (progress) progress({total, total, {}});
  return rows;
}

}  // namespace tb::ui
