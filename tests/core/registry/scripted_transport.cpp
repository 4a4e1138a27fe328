// An exhausted script is a test bug, reported as a failure rather than a
// crash so the test names what it did not expect.
#include "scripted_transport.hpp"

#include <gtest/gtest.h>

namespace tb::registry::test {

Expected<HttpResponse> ScriptedTransport::send(const HttpRequest& request) {
  script_->sent.push_back(request);
  if (script_->replies.empty()) {
    ADD_FAILURE() << "unexpected request " << request.method << " " << request.url;
    return makeError(ErrorKind::Io, "script exhausted");
  }
  Expected<HttpResponse> next = std::move(script_->replies.front());
  script_->replies.pop_front();
  return next;
}

HttpResponse reply(long status, std::string body, std::vector<HttpHeader> headers) {
  return HttpResponse{status, std::move(headers), std::move(body)};
}

std::string authorizationOf(const HttpRequest& request) {
  for (const HttpHeader& header : request.headers) {
    if (header.name == "Authorization") return header.value;
  }
  return "";
}

ScriptedClient::ScriptedClient(ClientOptions options) {
  auto recorded = sleeps;
  options.sleep = [recorded](std::chrono::milliseconds delay) {
    recorded->push_back(delay.count());
  };
  client = std::make_unique<RegistryClient>("registry.test", std::move(options),
                                            std::make_unique<ScriptedTransport>(script));
}

}  // namespace tb::registry::test
