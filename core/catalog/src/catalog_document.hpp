// Private to tb_catalog: the steps of parseCatalog() after JSON syntax and the
// schema, split out so that catalog_loader.cpp reads as the pipeline it is.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tb/catalog/catalog.hpp"
#include "tb/common/json_schema.hpp"

namespace tb::catalog::detail {

/// "12.8.1" -> {12, 8, 1}; "12.8" -> {12, 8, 0}; nothing for anything else.
[[nodiscard]] std::optional<std::array<int, 3>> parseCudaVersion(std::string_view text);

/// The rules a schema cannot say: unique keys, driver strings that parse,
/// minimum versions inside their own branch, toolkit labels that agree with
/// their numbers. `document` must already satisfy the schema.
[[nodiscard]] std::vector<json_schema::Violation> checkCatalogRules(
    const nlohmann::ordered_json& document);

/// Builds the Catalog from a document that passed the schema and the rules.
[[nodiscard]] Catalog catalogFromDocument(const nlohmann::ordered_json& document,
                                          const std::string& sourceName);

/// Puts releases, toolkit rows and branches in the order Catalog documents.
void sortCatalog(Catalog& catalog);

}  // namespace tb::catalog::detail
