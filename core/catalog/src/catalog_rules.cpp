// Rules that JSON Schema (or our subset of it) cannot express. They run only on
// documents that passed the schema, so every field is known to exist and to
// have the right type; what is left is cross-field and cross-row consistency.
// Each broken rule names the JSON path, like a schema violation, so the user
// sees one kind of message whichever check caught the mistake.
#include <map>

#include "catalog_document.hpp"
#include "tb/catalog/driver_version.hpp"
#include "tb/common/text.hpp"

namespace tb::catalog::detail {
namespace {

using json_schema::indexPath;
using json_schema::memberPath;
using json_schema::Violation;
using Json = nlohmann::ordered_json;

class RuleChecker {
 public:
  std::vector<Violation> run(const Json& document) {
    checkReleases(document.at("releases"));
    if (const auto rows = document.find("toolkit_drivers"); rows != document.end()) {
      checkToolkitRows(*rows);
    }
    if (const auto branches = document.find("driver_branches"); branches != document.end()) {
      checkBranches(*branches);
    }
    return std::move(violations_);
  }

 private:
  void report(const std::string& path, std::string message) {
    violations_.push_back(Violation{path, std::move(message)});
  }

  // Remembers where each key was first seen; reports the second sighting.
  void checkUnique(std::map<std::string, std::string>& seen, const std::string& key,
                   const std::string& path, const std::string& what) {
    const auto [first, inserted] = seen.emplace(key, path);
    if (!inserted) report(path, "duplicate " + what + " (first at " + first->second + ")");
  }

  // A driver string that parses and, when `branch` is given, belongs to it.
  void checkDriver(const Json& value, const std::string& path, std::optional<int> branch) {
    const auto version = DriverVersion::parse(value.get<std::string>());
    if (!version) {
      report(path, version.error().message);
    } else if (branch && version->major() != *branch) {
      report(path, version->text() + " is not a version of branch R" + std::to_string(*branch));
    }
  }

  void checkReleases(const Json& releases) {
    std::map<std::string, std::string> tags;
    for (std::size_t i = 0; i < releases.size(); ++i) {
      const Json& release = releases[i];
      const std::string path = indexPath("$.releases", i);
      const auto tag = release.at("tag").get<std::string>();
      checkUnique(tags, tag, memberPath(path, "tag"), "tag \"" + tag + "\"");
      if (!parseCudaVersion(release.at("cuda_version").get<std::string>())) {
        report(memberPath(path, "cuda_version"),
               release.at("cuda_version").dump() + " is not a CUDA version such as 12.8.1");
      }
      checkAllowances(release.at("forward_compat"), memberPath(path, "forward_compat"));
    }
  }

  void checkAllowances(const Json& allowances, const std::string& path) {
    std::map<std::string, std::string> branches;
    for (std::size_t i = 0; i < allowances.size(); ++i) {
      const std::string itemPath = indexPath(path, i);
      const int branch = allowances[i].at("branch").get<int>();
      checkUnique(branches, std::to_string(branch), memberPath(itemPath, "branch"),
                  "allowance for branch R" + std::to_string(branch));
      checkDriver(allowances[i].at("minimum"), memberPath(itemPath, "minimum"), branch);
    }
  }

  void checkToolkitRows(const Json& rows) {
    std::map<std::string, std::string> versions;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const std::string path = indexPath("$.toolkit_drivers", i);
      const auto label = rows[i].at("cuda_release").get<std::string>();
      const auto number = rows[i].at("cuda_version").get<std::string>();
      const auto parsed = parseCudaVersion(number);
      if (!parsed) {
        report(memberPath(path, "cuda_version"),
               "\"" + number + "\" is not a CUDA version such as 12.8.1");
      } else {
        checkUnique(versions, number, memberPath(path, "cuda_version"), "CUDA version " + number);
        const std::string series =
            std::to_string((*parsed)[0]) + "." + std::to_string((*parsed)[1]);
        if (label.rfind(series + " ", 0) != 0) {
          report(memberPath(path, "cuda_release"),
                 "\"" + label + "\" does not name the same CUDA release as cuda_version " + number);
        }
      }
      checkDriver(rows[i].at("minimum_linux"), memberPath(path, "minimum_linux"), std::nullopt);
    }
  }

  void checkBranches(const Json& branches) {
    std::map<std::string, std::string> seen;
    for (std::size_t i = 0; i < branches.size(); ++i) {
      const std::string path = indexPath("$.driver_branches", i);
      const int branch = branches[i].at("branch").get<int>();
      checkUnique(seen, std::to_string(branch), memberPath(path, "branch"),
                  "branch " + std::to_string(branch));
      checkDriver(branches[i].at("representative"), memberPath(path, "representative"), branch);
    }
  }

  std::vector<Violation> violations_;
};

}  // namespace

std::optional<std::array<int, 3>> parseCudaVersion(std::string_view text) {
  const auto parts = split(text, '.');
  if (parts.size() < 2 || parts.size() > 3) return std::nullopt;
  std::array<int, 3> numbers{0, 0, 0};
  for (std::size_t i = 0; i < parts.size(); ++i) {
    // CUDA parts are at most three digits; the bound keeps the int exact.
    if (parts[i].size() > 3) return std::nullopt;
    const auto number = parseUnsigned(parts[i]);
    if (!number) return std::nullopt;
    numbers[i] = static_cast<int>(*number);
  }
  return numbers;
}

std::vector<Violation> checkCatalogRules(const nlohmann::ordered_json& document) {
  return RuleChecker{}.run(document);
}

}  // namespace tb::catalog::detail
