// The push follows the OCI distribution-spec recipe that Debian's
// docker-registry 2.8.2 accepts: POST an upload, PUT the blob with ?digest=
// appended to the returned Location (2.8 already puts `_state` in it), PUT
// manifests by digest, then the index by tag. Digests come from sha256sum so
// the test does not need a crypto library.
#include "registry_push.hpp"

#include <fstream>
#include <sstream>

#include "tb/common/subprocess.hpp"
#include "tb/registry/http_transport.hpp"
#include "tb/registry/registry_documents.hpp"

namespace tb::registry::test {
namespace {

Expected<std::string> sha256Digest(const std::string& content) {
  ProcessOptions options;
  options.standardInput = content;
  options.timeout = std::chrono::milliseconds(10000);
  auto result = runProcess({"sha256sum"}, options);
  if (!result) return std::move(result).error();
  if (result->exitCode != 0 || result->standardOutput.size() < 64) {
    return makeError(ErrorKind::Runtime, "sha256sum failed: " + result->standardError);
  }
  return "sha256:" + result->standardOutput.substr(0, 64);
}

std::string readData(const std::string& name) {
  std::ifstream in(std::string(TB_TEST_DATA_DIR) + "/registry/" + name, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

class Pusher {
 public:
  Pusher(std::string host, std::string repository)
      : host_(std::move(host)),
        repository_(std::move(repository)),
        transport_(makeCurlTransport({})) {}

  Status send(HttpRequest request, long expected, HttpResponse* out = nullptr) {
    request.headers.push_back({"Authorization", "Bearer test-pusher"});
    auto response = transport_->send(request);
    if (!response) return std::move(response).error();
    if (response->status != expected) {
      return makeError(ErrorKind::Runtime, request.method + " " + request.url + ": HTTP " +
                                               std::to_string(response->status) + " " +
                                               response->body);
    }
    if (out != nullptr) *out = std::move(*response);
    return {};
  }

  Status pushBlob(const std::string& content, const std::string& digest) {
    HttpRequest start;
    start.method = "POST";
    start.url = base() + "/blobs/uploads/";
    HttpResponse started;
    if (Status status = send(start, 202, &started); !status) return status;
    std::string location = started.header("Location").value_or("");
    if (location.starts_with("/")) location = "http://" + host_ + location;
    HttpRequest put;
    put.method = "PUT";
    put.url = location + (location.find('?') == std::string::npos ? "?" : "&") + "digest=" + digest;
    put.headers.push_back({"Content-Type", "application/octet-stream"});
    put.body = content;
    return send(put, 201);
  }

  Status pushManifest(const std::string& content, std::string_view mediaType,
                      const std::string& reference) {
    HttpRequest put;
    put.method = "PUT";
    put.url = base() + "/manifests/" + reference;
    put.headers.push_back({"Content-Type", std::string(mediaType)});
    put.body = content;
    return send(put, 201);
  }

 private:
  std::string base() const { return "http://" + host_ + "/v2/" + repository_; }

  std::string host_;
  std::string repository_;
  std::unique_ptr<HttpTransport> transport_;
};

std::string descriptor(std::string_view mediaType, const std::string& digest, std::size_t size) {
  return R"({"mediaType":")" + std::string(mediaType) + R"(","digest":")" + digest +
         R"(","size":)" + std::to_string(size);
}

}  // namespace

Expected<PushedImage> pushTwoPlatformImage(const std::string& host, const std::string& repository,
                                           const std::vector<std::string>& tags) {
  Pusher pusher(host, repository);
  PushedImage pushed;
  std::string entries;
  struct Arch {
    const char* file;
    const char* platform;
  };
  for (const Arch arch :
       {Arch{"config-amd64.json", R"({"os":"linux","architecture":"amd64"})"},
        Arch{"config-arm64.json", R"({"os":"linux","architecture":"arm64","variant":"v8"})"}}) {
    const std::string config = readData(arch.file);
    if (config.empty()) return makeError(ErrorKind::Io, std::string("missing ") + arch.file);
    auto configDigest = sha256Digest(config);
    if (!configDigest) return std::move(configDigest).error();
    if (Status status = pusher.pushBlob(config, *configDigest); !status) return status.error();
    const std::string manifest =
        R"({"schemaVersion":2,"mediaType":")" + std::string(kOciManifest) + R"(","config":)" +
        descriptor("application/vnd.oci.image.config.v1+json", *configDigest, config.size()) +
        R"(},"layers":[]})";
    auto manifestDigest = sha256Digest(manifest);
    if (!manifestDigest) return std::move(manifestDigest).error();
    if (Status status = pusher.pushManifest(manifest, kOciManifest, *manifestDigest); !status) {
      return status.error();
    }
    pushed.platformDigests.push_back(*manifestDigest);
    entries += (entries.empty() ? "" : ",") +
               descriptor(kOciManifest, *manifestDigest, manifest.size()) + R"(,"platform":)" +
               arch.platform + "}";
  }
  const std::string index = R"({"schemaVersion":2,"mediaType":")" + std::string(kOciIndex) +
                            R"(","manifests":[)" + entries + "]}";
  auto indexDigest = sha256Digest(index);
  if (!indexDigest) return std::move(indexDigest).error();
  pushed.indexDigest = *indexDigest;
  for (const std::string& tag : tags) {
    if (Status status = pusher.pushManifest(index, kOciIndex, tag); !status) return status.error();
  }
  return pushed;
}

}  // namespace tb::registry::test
