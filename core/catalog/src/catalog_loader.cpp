// parseCatalog() is a pipeline of three gates (JSON syntax, the schema, the
// rules) before any struct is built, which is what makes loading all or
// nothing: nothing is converted until the whole document has passed. The
// schema is read from the same embedded file the data ships with, so the file
// documents and enforces the format at once.
#include "tb/catalog/catalog_loader.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "catalog_document.hpp"
#include "embedded_resources.hpp"
#include "tb/common/atomic_file.hpp"

namespace tb::catalog {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kBuiltinSource = "built-in releases.json";
// Enough lines to fix a file in one pass without burying the first problem.
constexpr std::size_t kMaxReported = 5;

const nlohmann::json& catalogSchema() {
  static const nlohmann::json schema = [] {
    try {
      return nlohmann::json::parse(embedded::catalogSchemaJson());
    } catch (const nlohmann::json::parse_error& e) {
      throw std::logic_error(std::string("catalog.schema.json is not valid JSON: ") + e.what());
    }
  }();
  return schema;
}

// nlohmann reports the 1-based byte index of the last byte it read; a person
// wants a line and a column, counted in characters rather than UTF-8 bytes.
Error syntaxError(const std::string& source, std::string_view text,
                  const nlohmann::json::parse_error& e) {
  const std::size_t end = std::min(e.byte > 0 ? e.byte - 1 : 0, text.size());
  std::size_t line = 1;
  std::size_t column = 1;
  for (std::size_t i = 0; i < end; ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte == '\n') {
      ++line;
      column = 1;
    } else if ((byte & 0xC0U) != 0x80U) {
      ++column;
    }
  }
  // Drop nlohmann's "[json.exception.parse_error.101] parse error at ...: " prefix.
  std::string reason = e.what();
  if (const auto at = reason.find("parse error"); at != std::string::npos) {
    if (const auto colon = reason.find(": ", at); colon != std::string::npos) {
      reason = reason.substr(colon + 2);
    }
  }
  return makeError(ErrorKind::Parse, source + ": line " + std::to_string(line) + ", column " +
                                         std::to_string(column) + ": " + reason);
}

Error violationError(const std::string& source,
                     const std::vector<json_schema::Violation>& violations) {
  std::string message;
  for (std::size_t i = 0; i < violations.size() && i < kMaxReported; ++i) {
    if (i > 0) message += '\n';
    message += source + ": " + violations[i].path + ": " + violations[i].message;
  }
  if (violations.size() > kMaxReported) {
    message += "\n" + source + ": and " + std::to_string(violations.size() - kMaxReported) +
               " more problems";
  }
  return makeError(ErrorKind::Parse, std::move(message));
}

template <class Row, class SameKey>
void layOver(std::vector<Row>& rows, const std::vector<Row>& extra, SameKey sameKey) {
  for (const Row& row : extra) {
    const auto existing = std::find_if(
        rows.begin(), rows.end(), [&](const Row& candidate) { return sameKey(candidate, row); });
    if (existing != rows.end()) {
      *existing = row;
    } else {
      rows.push_back(row);
    }
  }
}

}  // namespace

Expected<Catalog> parseCatalog(std::string_view json, std::string_view sourceName) {
  const std::string source(sourceName);
  Json document;
  try {
    document = Json::parse(json.begin(), json.end());
  } catch (const nlohmann::json::parse_error& e) {
    return syntaxError(source, json, e);
  } catch (const nlohmann::json::exception& e) {
    // A number too large for a double (1e400) is out_of_range, not a parse_error.
    return makeError(ErrorKind::Parse, source + ": not valid JSON: " + e.what());
  }
  if (auto violations = json_schema::validate(catalogSchema(), document); !violations.empty()) {
    return violationError(source, violations);
  }
  if (auto broken = detail::checkCatalogRules(document); !broken.empty()) {
    return violationError(source, broken);
  }
  return detail::catalogFromDocument(document, source);
}

Expected<Catalog> loadCatalogFile(const std::filesystem::path& path) {
  auto text = readFile(path);
  if (!text) return text.error();
  return parseCatalog(*text, path.string());
}

const Catalog& builtinCatalog() {
  // A function-local static: initialised once, thread-safe since C++11.
  static const Catalog catalog = [] {
    auto parsed = parseCatalog(embedded::builtinCatalogJson(), kBuiltinSource);
    if (!parsed) {
      // Not a user error: the data compiled into this binary is broken.
      std::fprintf(stderr, "trainbench: the built-in release catalog does not load:\n%s\n",
                   parsed.error().message.c_str());
      std::abort();
    }
    return std::move(parsed).value();
  }();
  return catalog;
}

Catalog mergeCatalogs(const Catalog& base, const Catalog& extra) {
  // catalogVersion stays the base's: it versions the shipped data, and
  // `sources` records what was laid over it.
  Catalog merged = base;
  layOver(merged.releases, extra.releases,
          [](const Release& a, const Release& b) { return a.tag == b.tag; });
  layOver(merged.toolkitDrivers, extra.toolkitDrivers,
          [](const auto& a, const auto& b) { return a.cudaVersion == b.cudaVersion; });
  layOver(merged.driverBranches, extra.driverBranches,
          [](const DriverBranch& a, const DriverBranch& b) { return a.branch == b.branch; });
  merged.sources.insert(merged.sources.end(), extra.sources.begin(), extra.sources.end());
  detail::sortCatalog(merged);
  return merged;
}

}  // namespace tb::catalog
