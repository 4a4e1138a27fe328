// See artifact_parsing.hpp. Deliberately independent of the generators'
// code: a shared helper would hide the bugs these tests are for.
#include "artifact_parsing.hpp"

#include <regex>
#include <sstream>
#include <stdexcept>

namespace tb::config::test {

std::map<std::string, std::string> parseEnvFile(const std::string& content) {
  std::map<std::string, std::string> vars;
  std::istringstream lines(content);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line.front() == '#') continue;
    const auto equals = line.find('=');
    if (equals == std::string::npos) throw std::runtime_error("env line without '=': " + line);
    vars[line.substr(0, equals)] = line.substr(equals + 1);
  }
  return vars;
}

std::vector<std::vector<std::string>> parseShellCommands(const std::string& content) {
  std::vector<std::vector<std::string>> commands;
  std::vector<std::string> words;
  std::string word;
  bool inWord = false;
  const auto endWord = [&] {
    if (inWord) words.push_back(word);
    word.clear();
    inWord = false;
  };
  const auto endCommand = [&] {
    endWord();
    if (!words.empty()) commands.push_back(words);
    words.clear();
  };
  for (std::size_t i = 0; i < content.size(); ++i) {
    const char c = content[i];
    if (c == '\\' && i + 1 < content.size() && content[i + 1] == '\n') {
      ++i;
    } else if (c == '#' && !inWord) {
      while (i < content.size() && content[i] != '\n') ++i;
      endCommand();
    } else if (c == '\n') {
      endCommand();
    } else if (c == ' ' || c == '\t') {
      endWord();
    } else if (c == '\'' || c == '"') {
      const auto close = content.find(c, i + 1);
      if (close == std::string::npos) throw std::runtime_error("unclosed quote in shell text");
      word += content.substr(i + 1, close - i - 1);
      inWord = true;
      i = close;
    } else {
      word += c;
      inWord = true;
    }
  }
  endCommand();
  return commands;
}

std::map<std::string, std::string> parsePythonKwargs(const std::string& content) {
  static const std::regex kArgument(R"(^\s+([a-z0-9_]+)=(.+),\s*$)");
  std::map<std::string, std::string> kwargs;
  std::istringstream lines(content);
  for (std::string line; std::getline(lines, line);) {
    std::smatch match;
    if (std::regex_match(line, match, kArgument)) kwargs[match[1]] = match[2];
  }
  return kwargs;
}

std::string flagValue(const std::vector<std::string>& words, const std::string& name) {
  for (const std::string& word : words) {
    if (word.starts_with(name + "=")) return word.substr(name.size() + 1);
  }
  return {};
}

}  // namespace tb::config::test
