// Dockerfile rules for images built FROM training-nv-pytorch: reinstalling
// PyTorch or DeepSpeed overwrites the image's optimized builds (an error),
// ENTRYPOINT hides the image's entrypoint, ENV values follow the env rules.
// Instructions are joined across backslash continuations and keep the line
// they start on.
#include <algorithm>
#include <set>

#include "tb/common/text.hpp"
#include "validators.hpp"

namespace tb::config::detail {
namespace {

struct Instruction {
  int line = 0;
  std::string keyword;    ///< upper case
  std::string arguments;  ///< continuations joined with spaces
};

std::string toUpper(std::string_view text) {
  std::string upper(text);
  std::transform(upper.begin(), upper.end(), upper.begin(), [](char c) {
    return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
  });
  return upper;
}

// "pip", "pip3", "pip3.12", "/usr/bin/pip3"; not "pipx" or "pipeline".
bool isPip(std::string_view token) {
  const auto slash = token.rfind('/');
  if (slash != std::string_view::npos) token = token.substr(slash + 1);
  if (!token.starts_with("pip")) return false;
  token.remove_prefix(3);
  return std::all_of(token.begin(), token.end(),
                     [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
}

std::vector<Instruction> instructions(std::string_view content) {
  std::vector<Instruction> result;
  int lineNumber = 0;
  bool continuing = false;
  for (std::string_view raw : split(content, '\n')) {
    ++lineNumber;
    std::string_view line = trim(raw);
    if (line.starts_with("#") || (line.empty() && !continuing)) continue;
    const bool continues = line.ends_with("\\");
    if (continues) line = trim(line.substr(0, line.size() - 1));
    if (continuing) {
      result.back().arguments += " " + std::string(line);
    } else {
      const auto space = line.find_first_of(" \t");
      const std::string_view rest =
          space == std::string_view::npos ? std::string_view() : trim(line.substr(space));
      result.push_back({lineNumber, toUpper(line.substr(0, space)), std::string(rest)});
    }
    continuing = continues;
  }
  return result;
}

std::vector<std::string> words(std::string_view text) {
  std::vector<std::string> result;
  std::string current;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '"' || c == '\'' || c == '[' || c == ']' || c == ',') {
      if (!current.empty()) result.push_back(std::move(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty()) result.push_back(std::move(current));
  return result;
}

std::string packageName(std::string_view spec) {
  const auto end = spec.find_first_of("<>=!~[;@ ");
  std::string name = toLower(spec.substr(0, end));
  std::replace(name.begin(), name.end(), '_', '-');
  return name;
}

// The packages a shell command installs with pip (pip, pip3, python -m pip,
// uv pip), per command separated by &&, ||, ; or |.
std::vector<std::string> pipInstalls(std::string_view command) {
  static const std::set<std::string> kOptionsWithValue = {
      "-r", "--requirement", "-c", "--constraint", "-i",       "--index-url", "--extra-index-url",
      "-f", "--find-links",  "-t", "--target",     "--prefix", "--root"};
  std::vector<std::string> packages;
  std::string normalized(command);
  for (const char* separator : {"&&", "||", ";", "|"}) {
    for (auto at = normalized.find(separator); at != std::string::npos;
         at = normalized.find(separator, at + 1)) {
      normalized.replace(at, std::string_view(separator).size(), " \n ");
    }
  }
  for (std::string_view part : split(normalized, '\n')) {
    const auto tokens = words(part);
    auto pip =
        std::find_if(tokens.begin(), tokens.end(), [](const std::string& t) { return isPip(t); });
    if (pip == tokens.end() || pip + 1 == tokens.end() || *(pip + 1) != "install") continue;
    for (auto it = pip + 2; it != tokens.end(); ++it) {
      if (kOptionsWithValue.contains(*it)) {
        if (it + 1 != tokens.end()) ++it;
      } else if (!it->starts_with("-")) {
        packages.push_back(packageName(*it));
      }
    }
  }
  return packages;
}

void checkRun(FindingSink& sink, const Instruction& run) {
  for (const std::string& package : pipInstalls(run.arguments)) {
    if (package == "torch" || package == "deepspeed") {
      sink.add(Severity::Error, run.line, "", "reinstall-framework",
               "RUN pip install " + package + " reinstalls " +
                   (package == "torch" ? "PyTorch" : "DeepSpeed") +
                   " over the image's own build and overwrites its optimizations",
               "remove " + package + " from the install; the image already ships it");
    } else if (package == "torchvision" || package == "torchaudio") {
      sink.add(Severity::Warning, run.line, "", "reinstall-framework",
               "RUN pip install " + package + " can pull a different torch as a dependency",
               "install it with --no-deps, or leave it out if the image ships it");
    }
  }
}

void checkEnv(FindingSink& sink, const Instruction& env) {
  const auto tokens = words(env.arguments);
  if (env.arguments.find('=') == std::string::npos) {
    if (tokens.size() >= 2) checkImageVariable(sink, Place{env.line, ""}, tokens[0], tokens[1], 0);
    return;
  }
  for (const std::string& token : tokens) {
    const auto equals = token.find('=');
    if (equals == std::string::npos) continue;
    checkImageVariable(sink, Place{env.line, ""}, token.substr(0, equals), token.substr(equals + 1),
                       0);
  }
}

}  // namespace

void validateDockerfile(FindingSink& sink, std::string_view content,
                        const catalog::Catalog& catalog) {
  const auto parsed = instructions(content);
  std::set<std::string> imageStages;
  bool inImageStage = false;
  bool anyFrom = false;
  bool anyImageStage = false;
  for (const Instruction& instruction : parsed) {
    if (instruction.keyword == "FROM") {
      anyFrom = true;
      auto tokens = words(instruction.arguments);
      std::erase_if(tokens, [](const std::string& t) { return t.starts_with("--"); });
      const std::string base = tokens.empty() ? "" : tokens.front();
      inImageStage = isTrainingImage(base) || imageStages.contains(toLower(base));
      if (isTrainingImage(base)) checkImageTag(sink, Place{instruction.line, ""}, base, catalog);
      if (inImageStage && tokens.size() >= 3 && toLower(tokens[1]) == "as") {
        imageStages.insert(toLower(tokens[2]));
      }
      anyImageStage = anyImageStage || inImageStage;
    } else if (!inImageStage) {
      continue;
    } else if (instruction.keyword == "RUN") {
      checkRun(sink, instruction);
    } else if (instruction.keyword == "ENV") {
      checkEnv(sink, instruction);
    } else if (instruction.keyword == "ENTRYPOINT") {
      sink.add(Severity::Warning, instruction.line, "", "entrypoint",
               "ENTRYPOINT replaces the image's entrypoint, which enables CUDA forward "
               "compatibility",
               "use CMD for the command and keep the image's ENTRYPOINT");
    }
  }
  if (!anyFrom) {
    sink.add(Severity::Error, parsed.empty() ? 0 : parsed.front().line, "", "parse",
             "no FROM instruction: this is not a Dockerfile", "start the file with FROM <image>");
  } else if (!anyImageStage) {
    sink.add(Severity::Info, 0, "", "image-tag",
             "no stage is built FROM training-nv-pytorch; the image's rules were not checked",
             "validate the Dockerfile that builds on the image");
  }
}

}  // namespace tb::config::detail
