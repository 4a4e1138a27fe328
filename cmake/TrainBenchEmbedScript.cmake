# Script mode helper for tb_embed_text: writes the file as a byte array, which
# (unlike a raw string literal) has no length limit and no delimiter to escape.
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" hexlen)
math(EXPR size "${hexlen} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${hex}")
file(WRITE ${OUT}.tmp
"// Generated from ${IN}; do not edit.\n#include <string_view>\nnamespace tb::embedded {\nnamespace {\nconstexpr char kData[] = {${bytes} '\\0'};\n}\nstd::string_view ${SYMBOL}() { return {kData, ${size}}; }\n}  // namespace tb::embedded\n")
file(RENAME ${OUT}.tmp ${OUT})
