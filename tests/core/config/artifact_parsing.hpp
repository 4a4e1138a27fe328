// Readers for the generated artifacts that have no library parser: env files,
// shell commands (POSIX quoting) and the Python keyword-argument snippet. The
// tests parse every artifact back before asserting on it, so a quoting bug
// shows up as a wrong field, not as a string mismatch.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace tb::config::test {

/// NAME=VALUE lines of an env file; comments and blank lines skipped.
std::map<std::string, std::string> parseEnvFile(const std::string& content);

/// The commands of a shell script, each split into words the way sh would
/// (single and double quotes, backslash-newline continuations, # comments);
/// variable references are kept as written.
std::vector<std::vector<std::string>> parseShellCommands(const std::string& content);

/// The keyword arguments of the one call in a Python snippet: name -> the
/// literal as written (True, 4, "ds_config.json").
std::map<std::string, std::string> parsePythonKwargs(const std::string& content);

/// The value of "--name=value" among the words, or "" when missing.
std::string flagValue(const std::vector<std::string>& words, const std::string& name);

}  // namespace tb::config::test
