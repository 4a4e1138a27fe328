// The request loop of the client. Auth is lazy, as registries expect: send
// anonymously (or with a cached token), and answer a 401 challenge once. A
// token is cached per scope until shortly before it expires, so listing and
// inspecting a repository costs one token request. Only 429 and 5xx are
// retried: a refused connection or a 4xx will not get better by waiting.
#include "tb/registry/registry_client.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <thread>

#include "registry_errors.hpp"
#include "tb/common/text.hpp"

namespace tb::registry {
namespace {

using std::chrono::milliseconds;

constexpr int kMaxTagPages = 1000;  // a bound against a server that links to itself

std::string base64(std::string_view text) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string encoded;
  std::size_t i = 0;
  for (; i + 2 < text.size(); i += 3) {
    const auto n = (static_cast<unsigned>(static_cast<unsigned char>(text[i])) << 16) |
                   (static_cast<unsigned>(static_cast<unsigned char>(text[i + 1])) << 8) |
                   static_cast<unsigned>(static_cast<unsigned char>(text[i + 2]));
    for (int shift = 18; shift >= 0; shift -= 6) encoded += kAlphabet[(n >> shift) & 0x3F];
  }
  if (const std::size_t left = text.size() - i; left > 0) {
    unsigned n = static_cast<unsigned>(static_cast<unsigned char>(text[i])) << 16;
    if (left == 2) n |= static_cast<unsigned>(static_cast<unsigned char>(text[i + 1])) << 8;
    encoded += kAlphabet[(n >> 18) & 0x3F];
    encoded += kAlphabet[(n >> 12) & 0x3F];
    encoded += left == 2 ? kAlphabet[(n >> 6) & 0x3F] : '=';
    encoded += '=';
  }
  return encoded;
}

std::string joinAccept(std::initializer_list<std::string_view> types) {
  std::string accept;
  for (const std::string_view type : types) {
    accept += (accept.empty() ? "" : ", ") + std::string(type);
  }
  return accept;
}

// The path and query of a Link target; absolute URLs must stay on the host.
std::optional<std::string> linkPath(const std::string& target, const std::string& registry) {
  if (target.starts_with("/")) return target;
  const auto start = target.find("://");
  if (start == std::string::npos) return std::nullopt;
  const auto slash = target.find('/', start + 3);
  if (target.substr(start + 3, slash - start - 3) != registry) return std::nullopt;
  return slash == std::string::npos ? std::string("/") : target.substr(slash);
}

std::optional<milliseconds> retryAfter(const HttpResponse& response) {
  const auto header = response.header("Retry-After");
  if (!header) return std::nullopt;
  const auto seconds = parseUnsigned(trim(*header));
  if (!seconds) return std::nullopt;
  return milliseconds(*seconds * 1000);
}

}  // namespace

RegistryClient::RegistryClient(std::string registry, ClientOptions options,
                               std::unique_ptr<HttpTransport> transport)
    : registry_(std::move(registry)),
      options_(std::move(options)),
      transport_(std::move(transport)) {
  if (!options_.sleep) {
    options_.sleep = [](milliseconds delay) { std::this_thread::sleep_for(delay); };
  }
}

std::chrono::steady_clock::time_point RegistryClient::now() const {
  return options_.now ? options_.now() : std::chrono::steady_clock::now();
}

std::optional<std::string> RegistryClient::authorizationFor(const std::string& scope) const {
  if (const auto cached = tokens_.find(scope);
      cached != tokens_.end() && now() < cached->second.expires) {
    return "Bearer " + cached->second.token;
  }
  if (basicAccepted_ && options_.credentials) {
    return "Basic " + base64(options_.credentials->username + ":" + options_.credentials->password);
  }
  return std::nullopt;
}

void RegistryClient::blankSecrets(std::string& text) const {
  std::vector<std::string> secrets;
  if (options_.credentials) {
    secrets.push_back(
        base64(options_.credentials->username + ":" + options_.credentials->password));
    secrets.push_back(options_.credentials->password);
  }
  for (const auto& [scope, token] : tokens_) secrets.push_back(token.token);
  constexpr std::string_view kBlank = "[redacted]";
  for (const std::string& secret : secrets) {
    if (secret.empty()) continue;
    // Search on after the blank: a secret may be a part of "[redacted]".
    for (auto at = text.find(secret); at != std::string::npos;
         at = text.find(secret, at + kBlank.size())) {
      text.replace(at, secret.size(), kBlank);
    }
  }
}

Error RegistryClient::blanked(Error error) const {
  blankSecrets(error.message);
  return error;
}

Error RegistryClient::httpError(const std::string& what, const HttpResponse& response) const {
  return blanked(detail::httpError(what, response));
}

Expected<HttpResponse> RegistryClient::sendWithRetry(const HttpRequest& request,
                                                     const std::string& what) {
  milliseconds delay = options_.initialBackoff;
  for (int attempt = 0;; ++attempt) {
    auto response = transport_->send(request);
    if (!response) return std::move(response).error();
    const bool retryable = response->status == 429 || response->status >= 500;
    if (!retryable) return response;
    if (attempt >= options_.maxRetries) {
      Error error = httpError(what, *response);
      if (attempt > 0)
        error.message += "; gave up after " + std::to_string(attempt + 1) + " attempts";
      return error;
    }
    options_.sleep(std::min(retryAfter(*response).value_or(delay), options_.maxBackoff));
    delay = std::min(delay * 2, options_.maxBackoff);
  }
}

Expected<RegistryClient::CachedToken> RegistryClient::fetchToken(const AuthChallenge& challenge,
                                                                 const std::string& what) {
  if (challenge.realm.empty()) {
    return makeError(ErrorKind::Runtime, what + ": the Bearer challenge names no token realm");
  }
  if (!challenge.realm.starts_with("https://") &&
      !(options_.allowPlainHttpRealm && challenge.realm.starts_with("http://"))) {
    return makeError(ErrorKind::Runtime, what + ": refusing the token realm '" + challenge.realm +
                                             "': it is not an HTTPS URL");
  }
  std::string url = challenge.realm;
  url += challenge.realm.find('?') == std::string::npos ? '?' : '&';
  url += "service=" + urlEncode(challenge.service) + "&scope=" + urlEncode(challenge.scope);
  HttpRequest request;
  request.url = url;
  if (options_.credentials) {
    request.headers.push_back(
        {"Authorization",
         "Basic " + base64(options_.credentials->username + ":" + options_.credentials->password)});
  }
  const std::string tokenWhat = "registry " + registry_ + ": token request to " +
                                challenge.realm.substr(0, challenge.realm.find('?'));
  ++tokenRequests_;
  auto response = sendWithRetry(request, tokenWhat);
  if (!response) return std::move(response).error();
  if (response->status < 200 || response->status >= 300) {
    return httpError(tokenWhat, *response);
  }
  const auto document = nlohmann::json::parse(response->body, nullptr, false);
  if (!document.is_object()) {
    return makeError(ErrorKind::Runtime, tokenWhat + ": the response is not a JSON object");
  }
  std::string token;
  for (const char* field : {"token", "access_token"}) {
    if (const auto found = document.find(field); found != document.end() && found->is_string()) {
      token = found->get<std::string>();
      if (!token.empty()) break;
    }
  }
  if (token.empty())
    return makeError(ErrorKind::Runtime, tokenWhat + ": the response has no token");
  // The spec's default lifetime is 60 s; a few seconds are kept in hand so a
  // token does not expire between the check and the request.
  long long lifetime = 60;
  if (const auto found = document.find("expires_in");
      found != document.end() && found->is_number_integer() && found->get<long long>() > 0) {
    lifetime = found->get<long long>();
  }
  const auto margin = std::chrono::seconds(lifetime > 10 ? 5 : 0);
  return CachedToken{std::move(token), now() + std::chrono::seconds(lifetime) - margin};
}

Expected<HttpResponse> RegistryClient::get(const std::string& path, const std::string& accept,
                                           const std::string& repository) {
  const std::string what = detail::describeRequest(registry_, "GET", path);
  const std::string scope = "repository:" + repository + ":pull";
  const auto makeRequest = [&] {
    HttpRequest request;
    request.url =
        std::string(options_.scheme == Scheme::Https ? "https://" : "http://") + registry_ + path;
    if (!accept.empty()) request.headers.push_back({"Accept", accept});
    if (auto authorization = authorizationFor(scope)) {
      request.headers.push_back({"Authorization", std::move(*authorization)});
    }
    return request;
  };
  auto response = sendWithRetry(makeRequest(), what);
  if (response && response->status == 401) {
    AuthChallenge challenge = parseAuthChallenge(response->header("WWW-Authenticate").value_or(""));
    bool answered = false;
    if (challenge.scheme == AuthScheme::Bearer) {
      if (challenge.scope.empty()) challenge.scope = scope;
      auto token = fetchToken(challenge, what);
      if (!token) return std::move(token).error();
      tokens_[scope] = std::move(*token);
      answered = true;
    } else if (challenge.scheme == AuthScheme::Basic && options_.credentials && !basicAccepted_) {
      basicAccepted_ = true;
      answered = true;
    }
    if (answered) response = sendWithRetry(makeRequest(), what);
  }
  if (!response) return response;
  if (response->status < 200 || response->status >= 300) {
    return httpError(what, *response);
  }
  return response;
}

Expected<std::vector<std::string>> RegistryClient::listTags(const std::string& repository) {
  std::vector<std::string> tags;
  std::string path = "/v2/" + repository + "/tags/list";
  for (int page = 0; page < kMaxTagPages; ++page) {
    auto response = get(path, "application/json", repository);
    if (!response) return std::move(response).error();
    auto pageTags = parseTagList(response->body, detail::describeRequest(registry_, "GET", path));
    if (!pageTags) return blanked(std::move(pageTags).error());
    tags.insert(tags.end(), pageTags->begin(), pageTags->end());
    const auto link = response->header("Link");
    const auto next = link ? parseNextLink(*link) : std::nullopt;
    if (!next) return normalizeTags(std::move(tags));
    const auto nextPath = linkPath(*next, registry_);
    if (!nextPath) {
      return makeError(ErrorKind::Runtime, "registry " + registry_ +
                                               ": the next page of tags points to another host ('" +
                                               *next + "')");
    }
    path = *nextPath;
  }
  return makeError(ErrorKind::Runtime, "registry " + registry_ + ": more than " +
                                           std::to_string(kMaxTagPages) +
                                           " pages of tags; the Link headers loop");
}

Expected<Manifest> RegistryClient::fetchManifest(const std::string& repository,
                                                 const std::string& reference) {
  const std::string path = "/v2/" + repository + "/manifests/" + reference;
  auto response =
      get(path, joinAccept({kOciIndex, kDockerManifestList, kOciManifest, kDockerManifest}),
          repository);
  if (!response) return std::move(response).error();
  auto manifest = parseManifest(response->body, response->header("Content-Type").value_or(""),
                                detail::describeRequest(registry_, "GET", path));
  if (!manifest) return blanked(std::move(manifest).error());
  manifest->digest = response->header("Docker-Content-Digest")
                         .value_or(reference.starts_with("sha256:") ? reference : "");
  return manifest;
}

Expected<ImageConfig> RegistryClient::fetchImageConfig(const std::string& repository,
                                                       const std::string& configDigest) {
  const std::string path = "/v2/" + repository + "/blobs/" + configDigest;
  auto response = get(path, "", repository);
  if (!response) return std::move(response).error();
  auto config = parseImageConfig(response->body, detail::describeRequest(registry_, "GET", path));
  if (!config) return blanked(std::move(config).error());
  return config;
}

}  // namespace tb::registry
