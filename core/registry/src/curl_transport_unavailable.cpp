// A build without libcurl (TB_WITH_REGISTRY=OFF, the headless GPU build of
// tests/gpu/run-on-gpu.sh, whose machine has no -dev packages): there is no
// way to reach a registry, so every request fails saying why, and the
// commands that ask a registry exit 1 with that message.
#include <memory>
#include <string>

#include "tb/registry/http_transport.hpp"

namespace tb::registry {
namespace {

class UnavailableTransport final : public HttpTransport {
 public:
  Expected<HttpResponse> send(const HttpRequest& request) override {
    return makeError(ErrorKind::Runtime, "cannot send " + request.method + " " + request.url +
                                             ": this trainbench was built without the registry "
                                             "client (TB_WITH_REGISTRY=OFF, no libcurl)");
  }
};

}  // namespace

std::string transportLibraryVersion() { return "none: built with TB_WITH_REGISTRY=OFF"; }

std::unique_ptr<HttpTransport> makeCurlTransport(const TransportOptions& /*options*/) {
  return std::make_unique<UnavailableTransport>();
}

}  // namespace tb::registry
