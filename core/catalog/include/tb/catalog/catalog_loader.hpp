// Reading and checking catalog files. A catalog is JSON that must satisfy
// resources/catalog/catalog.schema.json plus rules a schema cannot say
// (unique tags, minimum versions inside their branch). Loading is all or
// nothing: an error leaves the caller's catalog untouched.
#pragma once

#include <filesystem>
#include <string_view>

#include "tb/catalog/catalog.hpp"
#include "tb/common/expected.hpp"

namespace tb::catalog {

/// Parses and checks catalog JSON. Errors are ErrorKind::Parse and read
/// "<sourceName>: <json path>: <what is wrong>", e.g.
/// "extra.json: $.releases[2].required_driver: expected an integer, got \"575\"".
Expected<Catalog> parseCatalog(std::string_view json, std::string_view sourceName);

/// Reads and parses a catalog file.
Expected<Catalog> loadCatalogFile(const std::filesystem::path& path);

/// The catalog compiled into the program (resources/catalog/releases.json).
/// Parsed once; a broken built-in catalog is a build defect that a test guards.
const Catalog& builtinCatalog();

/// `base` with `extra` laid over it: releases of `extra` replace those with
/// the same tag and add new ones; driver tables of `extra`, when present,
/// replace rows with the same key. Sources are concatenated.
Catalog mergeCatalogs(const Catalog& base, const Catalog& extra);

}  // namespace tb::catalog
