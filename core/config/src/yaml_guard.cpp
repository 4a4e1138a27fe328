#include "yaml_guard.hpp"

#include <yaml-cpp/eventhandler.h>

#include <sstream>
#include <string>

namespace tb::config::detail {
namespace {

// Listens only for where each document starts. A document of a stream that
// advances starts past the previous one's start (every document consumes at
// least one token), so a repeated start means the parser is going round.
class DocumentStarts final : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override {
    stuck_ = previous_.has_value() && previous_->pos == mark.pos;
    previous_ = mark;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

  [[nodiscard]] bool stuck() const { return stuck_; }
  [[nodiscard]] YAML::Mark where() const { return previous_.value_or(YAML::Mark::null_mark()); }

 private:
  std::optional<YAML::Mark> previous_;
  bool stuck_ = false;
};

std::string stuckMessage(std::string_view yaml, const YAML::Mark& mark) {
  if (mark.pos < 0 || static_cast<std::size_t>(mark.pos) >= yaml.size()) {
    return "a token that cannot start a value";
  }
  const char token = yaml[static_cast<std::size_t>(mark.pos)];
  std::string message = std::string("'") + token + "' where a value should start";
  if (token == ',') message += " (outside [ ] and { }, a ',' cannot follow a complete value)";
  return message;
}

}  // namespace

std::vector<YAML::Node> loadAllDocuments(std::string_view yaml) {
  std::istringstream stream{std::string(yaml)};
  {
    YAML::Parser parser(stream);
    DocumentStarts starts;
    while (parser.HandleNextDocument(starts)) {
      if (starts.stuck())
        throw YAML::ParserException(starts.where(), stuckMessage(yaml, starts.where()));
    }
  }
  // The same text, read again from its start, builds the nodes.
  stream.clear();
  stream.seekg(0);
  return YAML::LoadAll(stream);
}

std::optional<std::pair<int, unsigned char>> controlCharacter(std::string_view yaml) {
  int line = 1;
  for (const char c : yaml) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') ++line;
    if ((byte < 0x20 && c != '\t' && c != '\n' && c != '\r') || byte == 0x7F) {
      return std::pair{line, byte};
    }
  }
  return std::nullopt;
}

}  // namespace tb::config::detail
