// A transport that answers from a script and records what was sent, so the
// client's auth, retry and paging decisions can be checked request by request.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "tb/registry/http_transport.hpp"
#include "tb/registry/registry_client.hpp"

namespace tb::registry::test {

/// Shared by the test and the transport the client owns.
struct Script {
  std::deque<Expected<HttpResponse>> replies;
  std::vector<HttpRequest> sent;
};

class ScriptedTransport final : public HttpTransport {
 public:
  explicit ScriptedTransport(std::shared_ptr<Script> script) : script_(std::move(script)) {}
  Expected<HttpResponse> send(const HttpRequest& request) override;

 private:
  std::shared_ptr<Script> script_;
};

/// A response with a status, a body and headers.
HttpResponse reply(long status, std::string body = {}, std::vector<HttpHeader> headers = {});

/// The Authorization header of a sent request, or "" when there is none.
std::string authorizationOf(const HttpRequest& request);

/// A client for "registry.test" over the script, with sleeps recorded.
struct ScriptedClient {
  std::shared_ptr<Script> script = std::make_shared<Script>();
  std::shared_ptr<std::vector<long long>> sleeps = std::make_shared<std::vector<long long>>();
  std::unique_ptr<RegistryClient> client;

  explicit ScriptedClient(ClientOptions options = {});
};

}  // namespace tb::registry::test
