// Parsing is strict about shape (a manifest without "manifests" or "config"
// is an error naming the document) and lenient about extra fields, which
// registries and image builders add freely.
#include "tb/registry/registry_documents.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace tb::registry {
namespace {

using nlohmann::json;

Error malformed(std::string_view source, const std::string& why) {
  return makeError(ErrorKind::Runtime, std::string(source) + ": " + why);
}

Expected<json> parseJson(std::string_view body, std::string_view source) {
  json document = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded()) {
    std::string start(body.substr(0, 40));
    std::replace_if(
        start.begin(), start.end(), [](char c) { return c < ' '; }, ' ');
    return malformed(source, "the response is not JSON (it starts with '" + start + "')");
  }
  if (!document.is_object()) return malformed(source, "the response is not a JSON object");
  return document;
}

std::string stringField(const json& object, const char* name) {
  const auto found = object.find(name);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

}  // namespace

std::string Platform::name() const {
  std::string text = os + "/" + architecture;
  if (!variant.empty()) text += "/" + variant;
  return text;
}

std::optional<std::string> ImageConfig::envValue(std::string_view name) const {
  for (const std::string& entry : env) {
    if (entry.size() > name.size() && entry.starts_with(name) && entry[name.size()] == '=') {
      return entry.substr(name.size() + 1);
    }
  }
  return std::nullopt;
}

Expected<std::vector<std::string>> parseTagList(std::string_view body, std::string_view source) {
  auto document = parseJson(body, source);
  if (!document) return std::move(document).error();
  const auto tags = document->find("tags");
  std::vector<std::string> result;
  if (tags == document->end() || tags->is_null()) return result;
  if (!tags->is_array()) return malformed(source, "\"tags\" is not an array");
  for (const json& tag : *tags) {
    if (!tag.is_string()) return malformed(source, "a tag is not a string: " + tag.dump());
    result.push_back(tag.get<std::string>());
  }
  return result;
}

Expected<Manifest> parseManifest(std::string_view body, std::string_view contentType,
                                 std::string_view source) {
  auto document = parseJson(body, source);
  if (!document) return std::move(document).error();
  Manifest manifest;
  manifest.mediaType = stringField(*document, "mediaType");
  if (manifest.mediaType.empty()) manifest.mediaType = std::string(contentType);
  const auto entries = document->find("manifests");
  if (entries != document->end()) {
    if (!entries->is_array()) return malformed(source, "\"manifests\" is not an array");
    manifest.isIndex = true;
    for (const json& entry : *entries) {
      if (!entry.is_object()) return malformed(source, "a manifests[] entry is not an object");
      Platform platform;
      platform.digest = stringField(entry, "digest");
      platform.mediaType = stringField(entry, "mediaType");
      if (platform.digest.empty()) return malformed(source, "a manifests[] entry has no digest");
      if (const auto described = entry.find("platform");
          described != entry.end() && described->is_object()) {
        platform.os = stringField(*described, "os");
        platform.architecture = stringField(*described, "architecture");
        platform.variant = stringField(*described, "variant");
      }
      manifest.platforms.push_back(std::move(platform));
    }
    return manifest;
  }
  const auto config = document->find("config");
  if (config == document->end() || !config->is_object()) {
    return malformed(source, "the manifest has neither \"manifests\" nor \"config\"");
  }
  manifest.configDigest = stringField(*config, "digest");
  if (manifest.configDigest.empty()) return malformed(source, "the config has no digest");
  return manifest;
}

Expected<ImageConfig> parseImageConfig(std::string_view body, std::string_view source) {
  auto document = parseJson(body, source);
  if (!document) return std::move(document).error();
  ImageConfig config;
  config.os = stringField(*document, "os");
  config.architecture = stringField(*document, "architecture");
  if (const auto inner = document->find("config"); inner != document->end() && inner->is_object()) {
    if (const auto env = inner->find("Env"); env != inner->end() && env->is_array()) {
      for (const json& entry : *env) {
        if (entry.is_string()) config.env.push_back(entry.get<std::string>());
      }
    }
  }
  config.cudaVersion = config.envValue("CUDA_VERSION");
  config.requireCuda = config.envValue("NVIDIA_REQUIRE_CUDA");
  config.cudaDriverVersion = config.envValue("CUDA_DRIVER_VERSION");
  return config;
}

std::optional<RegistryErrorBody> parseErrorBody(std::string_view body) {
  const json document = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!document.is_object()) return std::nullopt;
  const auto errors = document.find("errors");
  if (errors == document.end() || !errors->is_array() || errors->empty() ||
      !errors->front().is_object()) {
    return std::nullopt;
  }
  return RegistryErrorBody{stringField(errors->front(), "code"),
                           stringField(errors->front(), "message")};
}

std::vector<std::string> normalizeTags(std::vector<std::string> tags) {
  std::sort(tags.begin(), tags.end());
  tags.erase(std::unique(tags.begin(), tags.end()), tags.end());
  return tags;
}

}  // namespace tb::registry
