// The files that tb_embed_text compiles into tb_catalog (see CMakeLists.txt).
// The generated translation units define these; nothing declares them there,
// so this private header is the one place that does.
#pragma once

#include <string_view>

namespace tb::embedded {

/// resources/catalog/releases.json, byte for byte.
std::string_view builtinCatalogJson();
/// resources/catalog/catalog.schema.json, byte for byte.
std::string_view catalogSchemaJson();

}  // namespace tb::embedded
