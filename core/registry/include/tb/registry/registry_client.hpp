// A client for one registry host (OCI distribution API, Docker Registry v2):
// tags, manifests and image configurations, read-only. It authenticates the
// way the registry asks (anonymous, Basic, Bearer tokens cached until they
// expire), retries 429 and 5xx a bounded number of times with backoff, and
// builds error messages that name the host, the HTTP status and the
// registry's error code but never a credential.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tb/common/expected.hpp"
#include "tb/registry/http_headers.hpp"
#include "tb/registry/http_transport.hpp"
#include "tb/registry/registry_documents.hpp"

namespace tb::registry {

/// A user name and password (or token) for Basic auth and token requests.
/// Kept out of every message the client produces.
struct Credentials {
  std::string username;
  std::string password;
};

/// How URLs to the registry are built.
enum class Scheme { Https, Http };

/// How the client behaves; the defaults suit a real registry.
struct ClientOptions {
  Scheme scheme = Scheme::Https;
  std::optional<Credentials> credentials;
  int maxRetries = 3;                             ///< extra attempts after a 429 or 5xx
  std::chrono::milliseconds initialBackoff{500};  ///< doubled per retry
  std::chrono::milliseconds maxBackoff{8'000};    ///< also caps Retry-After
  /// Allows token realms over plain HTTP (loopback test registries only).
  bool allowPlainHttpRealm = false;
  /// Waits between retries; tests pass a recorder instead of sleeping.
  std::function<void(std::chrono::milliseconds)> sleep;
  /// The clock token expiry is measured with; tests pass a fake one.
  std::function<std::chrono::steady_clock::time_point()> now;
};

/// Talks to one registry host. Not thread-safe: one client per worker.
class RegistryClient {
 public:
  RegistryClient(std::string registry, ClientOptions options,
                 std::unique_ptr<HttpTransport> transport);

  /// Every tag of the repository, following Link pages, sorted, unique.
  [[nodiscard]] Expected<std::vector<std::string>> listTags(const std::string& repository);
  /// The manifest a tag or digest names, with the full Accept set.
  [[nodiscard]] Expected<Manifest> fetchManifest(const std::string& repository,
                                                 const std::string& reference);
  /// The configuration blob of an image (no layer is fetched).
  [[nodiscard]] Expected<ImageConfig> fetchImageConfig(const std::string& repository,
                                                       const std::string& configDigest);

  [[nodiscard]] const std::string& registry() const { return registry_; }
  /// How many token requests were made (tests check the cache with it).
  [[nodiscard]] int tokenRequests() const { return tokenRequests_; }

 private:
  struct CachedToken {
    std::string token;
    std::chrono::steady_clock::time_point expires;
  };

  Expected<HttpResponse> get(const std::string& path, const std::string& accept,
                             const std::string& repository);
  Expected<HttpResponse> sendWithRetry(const HttpRequest& request, const std::string& what);
  /// Blanks every secret this client holds (the password, the Basic
  /// credential, its tokens) in `text` as "[redacted]": a server that echoes
  /// the Authorization header must not put it in front of a user through an
  /// error that quotes its answer.
  void blankSecrets(std::string& text) const;
  /// `error` (one quoting a server's answer) with the secrets blanked.
  [[nodiscard]] Error blanked(Error error) const;
  /// The registry's error for a non-2xx answer, secrets blanked.
  [[nodiscard]] Error httpError(const std::string& what, const HttpResponse& response) const;
  Expected<CachedToken> fetchToken(const AuthChallenge& challenge, const std::string& what);
  std::optional<std::string> authorizationFor(const std::string& scope) const;
  std::chrono::steady_clock::time_point now() const;

  std::string registry_;
  ClientOptions options_;
  std::unique_ptr<HttpTransport> transport_;
  std::map<std::string, CachedToken> tokens_;  ///< by scope
  bool basicAccepted_ = false;                 ///< the registry asked for Basic once
  int tokenRequests_ = 0;
};

/// One platform of an inspected image with what its configuration declares.
struct PlatformImage {
  Platform platform;
  ImageConfig config;
};

/// A tag as `trainbench registry inspect` reports it.
struct ImageInspection {
  std::string reference;  ///< as resolved: registry/repository:tag
  std::string digest;     ///< of the fetched manifest (index or image)
  std::string mediaType;
  std::vector<PlatformImage> platforms;
};

/// Fetches the manifest and, for each platform, its image manifest and
/// configuration blob. Attestation entries (os "unknown") are skipped.
[[nodiscard]] Expected<ImageInspection> inspectImage(RegistryClient& client,
                                                     const std::string& repository,
                                                     const std::string& reference);

}  // namespace tb::registry
