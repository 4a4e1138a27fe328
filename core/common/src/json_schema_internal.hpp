// Private to tb_common: the half of the validator that inspects the schema
// itself, shared by json_schema_check.cpp (which proves it well formed) and
// json_schema.cpp (which follows its references while validating).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace tb::json_schema::detail {

/// Throws std::logic_error, naming the schema location, when `root` is not a
/// schema object or uses a keyword outside the supported subset.
void checkSchema(const nlohmann::json& root);

/// The schema a local "$ref" ("#" or "#/...") points at; std::logic_error
/// when it points outside the document or at something that is not a schema.
const nlohmann::json& resolveRef(const nlohmann::json& root, const std::string& ref,
                                 const std::string& where);

}  // namespace tb::json_schema::detail
