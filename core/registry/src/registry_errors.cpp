// Error bodies are quoted only through their code and message fields, never
// verbatim: a proxy's HTML page or an echoed header must not reach the user.
#include "registry_errors.hpp"

#include "tb/registry/registry_documents.hpp"

namespace tb::registry::detail {

Error httpError(const std::string& what, const HttpResponse& response) {
  std::string message = what + ": HTTP " + std::to_string(response.status);
  if (const auto body = parseErrorBody(response.body)) {
    if (!body->code.empty()) message += " " + body->code;
    if (!body->message.empty()) message += " (" + body->message + ")";
  }
  ErrorKind kind = ErrorKind::Runtime;
  if (response.status == 404) {
    kind = ErrorKind::NotFound;
  } else if (response.status >= 400 && response.status < 500 && response.status != 429) {
    kind = ErrorKind::BadInput;
  }
  if (response.status == 401 || response.status == 403) {
    message +=
        "; give credentials in TRAINBENCH_REGISTRY_USERNAME and "
        "TRAINBENCH_REGISTRY_PASSWORD if the repository is private";
  }
  return makeError(kind, std::move(message));
}

std::string describeRequest(const std::string& registry, const std::string& method,
                            const std::string& path) {
  return "registry " + registry + ": " + method + " " + path.substr(0, path.find('?'));
}

}  // namespace tb::registry::detail
