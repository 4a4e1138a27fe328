// The guard that keeps yaml-cpp 0.7 from a stream it never returns from (a
// ',' where a value should start, outside any flow collection; fuzz findings
// tests/fuzz/regressions/config_detect/ and config_k8s/), and the valid YAML
// it must read as YAML::LoadAll does. Each load runs in a child process with
// an alarm, so a guard that misses fails the test in seconds instead of
// allocating empty documents until the machine runs out of memory.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "tb/catalog/catalog_loader.hpp"
#include "tb/config/validation.hpp"
#include "yaml_guard.hpp"

namespace tb::config::detail {
namespace {

// Exit code 3 when loadAllDocuments reports a parse error, 4 when it returns.
void loadInAChild(const std::string& yaml) {
  alarm(3);  // a load takes microseconds; going round allocates about 0.5 GB a second
  try {
    (void)loadAllDocuments(yaml);
  } catch (const YAML::Exception&) {
    std::_Exit(3);
  }
  std::_Exit(4);
}

TEST(YamlGuard, ReportsWhatYamlCppWouldGoRoundOn) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // Each of these sends YAML::LoadAll round forever.
  for (const char* stuck :
       {"\"\"\"\",", "\"\",x\nkind: h", "'a',b\n", "[a],b\n", "{}, b\n", "\"a\" ,b\n",
        "\"\"i\n,kind:h", "\"\"!Ptorch:25serod,!!strknd", "k: ,a\n",
        // The CI finding the lexer this replaced missed: a tag running into '{'.
        "\"\"!Ptorc\"--pch:27aru.cr.aliyuncs{.cong-nv-pylimits:     env:\n"
        "        - name: NCCL_SOingjun/training-nv-pyless\n n\",-\" -d"}) {
    EXPECT_EXIT(loadInAChild(stuck), testing::ExitedWithCode(3), "") << stuck;
  }
}

TEST(YamlGuard, NamesTheTokenAndItsLine) {
  try {
    (void)loadAllDocuments("# a comment\n\n\"\"\n,x\n");
    FAIL() << "no parse error";
  } catch (const YAML::ParserException& error) {
    EXPECT_EQ(error.mark.line + 1, 4);
    EXPECT_NE(error.msg.find("','"), std::string::npos) << error.msg;
  }
}

TEST(YamlGuard, ReadsValidYamlAsLoadAllDoes) {
  for (const char* valid :
       {"k: [a, \"b\", c]\n", "k: {\"a\": 1, \"b\": 2}\n", "args: [\"a\",\n  \"b\"]\n",
        "command: echo \"hi\",there\n", "k: 'it''s' # a comment, with commas\n",
        "k: \"a\\\", b\"\n", "- a, b\n", "url: http://x/a,b\n", "k: !!str a,b\n",
        "base: &b {x: 1, y: 2}\nk: *b\n", "a: 1\n---\nb: 2\n---\n---\n", ""}) {
    const auto documents = loadAllDocuments(valid);
    const auto expected = YAML::LoadAll(valid);
    ASSERT_EQ(documents.size(), expected.size()) << valid;
    for (std::size_t d = 0; d < documents.size(); ++d) {
      EXPECT_EQ(YAML::Dump(documents[d]), YAML::Dump(expected[d])) << valid;
    }
  }
}

TEST(YamlGuard, ControlCharactersAreNotText) {
  EXPECT_EQ(controlCharacter(std::string_view("a: 1\nb: \0", 10)),
            (std::pair<int, unsigned char>{2, 0}));
  EXPECT_EQ(controlCharacter("a:\t1\r\n"), std::nullopt);
}

TEST(YamlGuard, TheValidatorSaysSoInsteadOfHanging) {
  const FileReport report =
      validateContent("job.yaml", "apiVersion: v1\n---\n\"\",x\n", FileKind::KubernetesManifest,
                      catalog::builtinCatalog());
  ASSERT_EQ(report.findings.size(), 1u);
  EXPECT_EQ(report.findings.front().rule, "parse");
  EXPECT_EQ(report.findings.front().line, 3);
  EXPECT_NE(report.findings.front().message.find("','"), std::string::npos);
}

}  // namespace
}  // namespace tb::config::detail
