// The guard that keeps yaml-cpp 0.7 from a document it never returns from
// (a ',' after a complete value outside any flow collection; fuzz finding
// tests/fuzz/regressions/config_detect/), and the valid YAML it must let by.
#include <gtest/gtest.h>

#include "tb/catalog/catalog_loader.hpp"
#include "tb/config/validation.hpp"
#include "yaml_guard.hpp"

namespace tb::config::detail {
namespace {

TEST(YamlGuard, FindsACommaAfterACompleteValueOutsideFlow) {
  for (const char* stray : {"\"\",x\nkind: h", "\"a\",b\nc: d", "'a',b\n", "[a],b\n", "{}, b\n",
                            "\"a\" ,b\n", "k: \"a\",b\n", "- \"a\",b\n",
                            "\"R\"\"~\"\"!\",\" \"\"arm\"FRO: v1\n", "\"\"i\n,kind:h",
                            "k: ,a\n", "\"\"!Ptorch:25serod,!!strknd", "k: &a,b\n",
                            "k: !!str,x\n"}) {
    EXPECT_TRUE(strayFlowEntryLine(stray).has_value()) << stray;
  }
  EXPECT_EQ(strayFlowEntryLine("apiVersion: v1\nkind: Pod\nx: \"a\", b\n"), 3);
}

TEST(YamlGuard, LetsValidYamlBy) {
  for (const char* valid :
       {"k: [a, \"b\", c]\n", "k: {\"a\": 1, \"b\": 2}\n", "args: [\"a\",\n  \"b\"]\n",
        "command: echo \"hi\",there\n", "k: 'it''s' # a comment, with commas\n",
        "k: \"a\\\", b\"\n", "- a, b\n", "url: http://x/a,b\n", "k: !!str a,b\n",
        "base: &b {x: 1, y: 2}\nk: *b\n"}) {
    EXPECT_FALSE(strayFlowEntryLine(valid).has_value()) << valid;
  }
}

TEST(YamlGuard, ControlCharactersAreNotText) {
  EXPECT_EQ(controlCharacter(std::string_view("a: 1\nb: \0", 10)), (std::pair<int, unsigned char>{2, 0}));
  EXPECT_EQ(controlCharacter("a:\t1\r\n"), std::nullopt);
}

TEST(YamlGuard, TheValidatorSaysSoInsteadOfHanging) {
  const FileReport report = validateContent("job.yaml", "\"\",x\nkind: h\n",
                                            FileKind::KubernetesManifest,
                                            catalog::builtinCatalog());
  ASSERT_EQ(report.findings.size(), 1u);
  EXPECT_EQ(report.findings.front().rule, "parse");
  EXPECT_EQ(report.findings.front().line, 1);
  EXPECT_NE(report.findings.front().message.find("','"), std::string::npos);
}

}  // namespace
}  // namespace tb::config::detail
