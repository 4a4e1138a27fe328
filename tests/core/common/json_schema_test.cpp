// One test per keyword of the supported subset, each checking both that a good
// value passes and that a bad one is reported at the exact path with a message
// naming the value; plus the guard that refuses keywords outside the subset.
#include "tb/common/json_schema.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace {

using nlohmann::json;
using tb::json_schema::validate;
using tb::json_schema::Violation;

std::vector<Violation> check(const char* schema, const char* instance) {
  return validate(json::parse(schema), json::parse(instance));
}

TEST(JsonSchema, TypeDistinguishesIntegerFromNumberAndString) {
  const char* schema = R"({"type": "integer"})";
  EXPECT_TRUE(check(schema, "575").empty());
  EXPECT_TRUE(check(schema, "575.0").empty()) << "2020-12 counts 575.0 as an integer";
  const auto fraction = check(schema, "575.5");
  ASSERT_EQ(fraction.size(), 1U);
  EXPECT_EQ(fraction[0].message, "expected an integer, got number 575.5");
  const auto text = check(schema, R"("575")");
  ASSERT_EQ(text.size(), 1U);
  EXPECT_EQ(text[0].path, "$");
  EXPECT_EQ(text[0].message, "expected an integer, got string \"575\"");
}

TEST(JsonSchema, TypeListAcceptsAnyOfItsTypes) {
  const char* schema = R"({"type": ["string", "null"]})";
  EXPECT_TRUE(check(schema, "null").empty());
  EXPECT_TRUE(check(schema, R"("2026-06")").empty());
  const auto wrong = check(schema, "true");
  ASSERT_EQ(wrong.size(), 1U);
  EXPECT_EQ(wrong[0].message, "expected a string or null, got boolean true");
}

TEST(JsonSchema, RequiredReportsEachMissingPropertyAtTheObject) {
  const char* schema = R"({"type": "object", "required": ["tag", "image"]})";
  EXPECT_TRUE(check(schema, R"({"tag": "25.04", "image": "x"})").empty());
  const auto missing = check(schema, "{}");
  ASSERT_EQ(missing.size(), 2U);
  EXPECT_EQ(missing[0].path, "$");
  EXPECT_EQ(missing[0].message, "missing required property \"tag\"");
  EXPECT_EQ(missing[1].message, "missing required property \"image\"");
}

TEST(JsonSchema, PropertiesValidateMembersAtTheirPaths) {
  const char* schema = R"({"properties": {"a": {"properties": {"b": {"type": "string"}}}}})";
  const auto result = check(schema, R"({"a": {"b": 1}, "other": 2})");
  ASSERT_EQ(result.size(), 1U);
  EXPECT_EQ(result[0].path, "$.a.b");
  EXPECT_EQ(result[0].message, "expected a string, got integer 1");
}

TEST(JsonSchema, AdditionalPropertiesFalseNamesTheUnknownKeyAndTheKnownOnes) {
  const char* schema = R"({"properties": {"tag": {}, "image": {}}, "additionalProperties": false})";
  EXPECT_TRUE(check(schema, R"({"tag": "25.04"})").empty());
  const auto result = check(schema, R"({"tag": "25.04", "colour": "red"})");
  ASSERT_EQ(result.size(), 1U);
  EXPECT_EQ(result[0].path, "$.colour");
  EXPECT_EQ(result[0].message, "unknown property \"colour\"; known properties: image, tag");
}

TEST(JsonSchema, AdditionalPropertiesTrueAllowsAnyKey) {
  EXPECT_TRUE(check(R"({"properties": {}, "additionalProperties": true})", R"({"x": 1})").empty());
}

TEST(JsonSchema, ItemsValidateEveryElementWithItsIndex) {
  const char* schema = R"({"type": "array", "items": {"type": "integer"}})";
  EXPECT_TRUE(check(schema, "[418, 440]").empty());
  const auto result = check(schema, R"([418, "440", 450, null])");
  ASSERT_EQ(result.size(), 2U);
  EXPECT_EQ(result[0].path, "$[1]");
  EXPECT_EQ(result[1].path, "$[3]");
  EXPECT_EQ(result[1].message, "expected an integer, got null");
}

TEST(JsonSchema, EnumListsTheAllowedValues) {
  const char* schema = R"({"enum": ["amd64", "arm64"]})";
  EXPECT_TRUE(check(schema, R"("arm64")").empty());
  const auto result = check(schema, R"("sparc")");
  ASSERT_EQ(result.size(), 1U);
  EXPECT_EQ(result[0].message, "\"sparc\" is not one of \"amd64\", \"arm64\"");
}

TEST(JsonSchema, ConstRequiresExactlyThatValue) {
  const char* schema = R"({"const": 1})";
  EXPECT_TRUE(check(schema, "1").empty());
  const auto result = check(schema, "2");
  ASSERT_EQ(result.size(), 1U);
  EXPECT_EQ(result[0].message, "expected 1, got integer 2");
}

TEST(JsonSchema, PatternSearchesWithEcmaScriptSyntax) {
  const char* schema = R"({"type": "string", "pattern": "^[0-9]{2}\\.[0-9]{2}$"})";
  EXPECT_TRUE(check(schema, R"("25.04")").empty());
  const auto result = check(schema, R"("25.4")");
  ASSERT_EQ(result.size(), 1U);
  EXPECT_EQ(result[0].message, "\"25.4\" does not match the pattern ^[0-9]{2}\\.[0-9]{2}$");
  EXPECT_TRUE(check(R"({"pattern": "\\{region-id\\}"})", R"("a.{region-id}.b")").empty())
      << "an unanchored pattern matches anywhere in the string";
}

TEST(JsonSchema, PatternFailureQuotesTheDescriptionAsAHint) {
  const auto result =
      check(R"({"pattern": "^[0-9]+$", "description": "a branch such as 535"})", R"("R535")");
  ASSERT_EQ(result.size(), 1U);
  EXPECT_EQ(result[0].message,
            "\"R535\" does not match the pattern ^[0-9]+$ (a branch such as 535)");
}

TEST(JsonSchema, MinimumAndMaximumAreInclusive) {
  const char* schema = R"({"type": "integer", "minimum": 100, "maximum": 999})";
  EXPECT_TRUE(check(schema, "100").empty());
  EXPECT_TRUE(check(schema, "999").empty());
  const auto low = check(schema, "99");
  ASSERT_EQ(low.size(), 1U);
  EXPECT_EQ(low[0].message, "integer 99 is below the minimum 100");
  const auto high = check(schema, "1000");
  ASSERT_EQ(high.size(), 1U);
  EXPECT_EQ(high[0].message, "integer 1000 is above the maximum 999");
}

TEST(JsonSchema, MinItemsCountsElements) {
  const char* schema = R"({"type": "array", "minItems": 1})";
  EXPECT_TRUE(check(schema, "[1]").empty());
  const auto result = check(schema, "[]");
  ASSERT_EQ(result.size(), 1U);
  EXPECT_EQ(result[0].message, "expected at least 1 item, got 0");
}

TEST(JsonSchema, UniqueItemsNamesTheFirstDuplicatePair) {
  const char* schema = R"({"type": "array", "uniqueItems": true})";
  EXPECT_TRUE(check(schema, R"(["amd64", "arm64"])").empty());
  const auto result = check(schema, R"(["amd64", "arm64", "amd64"])");
  ASSERT_EQ(result.size(), 1U);
  EXPECT_EQ(result[0].path, "$");
  EXPECT_EQ(result[0].message, "items 0 and 2 are equal (string \"amd64\")");
  EXPECT_EQ(check(schema, R"([{"a": 1, "b": 2}, {"b": 2, "a": 1}])").size(), 1U)
      << "objects are equal regardless of key order";
}

TEST(JsonSchema, RefResolvesIntoDefs) {
  const char* schema = R"({
    "$defs": {"driver": {"type": "string", "pattern": "^[0-9]+\\.[0-9]+$"}},
    "properties": {"minimum": {"$ref": "#/$defs/driver"}}
  })";
  EXPECT_TRUE(check(schema, R"({"minimum": "535.86"})").empty());
  const auto result = check(schema, R"({"minimum": "535"})");
  ASSERT_EQ(result.size(), 1U);
  EXPECT_EQ(result[0].path, "$.minimum");
}

TEST(JsonSchema, WrongTypeSkipsTheNodesOtherKeywords) {
  const auto result = check(R"({"type": "string", "pattern": "^a$", "enum": ["a"]})", "5");
  EXPECT_EQ(result.size(), 1U) << "one wrong type, not three complaints about it";
}

TEST(JsonSchema, OrderedDocumentsReportViolationsInFileOrder) {
  const auto schema = json::parse(R"({"properties": {"a": {"type": "string"},
                                                     "z": {"type": "string"}}})");
  const auto result = validate(schema, nlohmann::ordered_json::parse(R"({"z": 1, "a": 2})"));
  ASSERT_EQ(result.size(), 2U);
  EXPECT_EQ(result[0].path, "$.z");
  EXPECT_EQ(result[1].path, "$.a");
}

TEST(JsonSchema, PathsQuoteKeysThatAreNotIdentifiers) {
  EXPECT_EQ(tb::json_schema::memberPath("$", "releases"), "$.releases");
  EXPECT_EQ(tb::json_schema::memberPath("$.a", "flash-attn"), "$.a[\"flash-attn\"]");
  EXPECT_EQ(tb::json_schema::memberPath("$", "2x"), "$[\"2x\"]");
  EXPECT_EQ(tb::json_schema::indexPath("$.releases", 2), "$.releases[2]");
}

TEST(JsonSchema, UnsupportedKeywordIsAProgrammingError) {
  EXPECT_THROW((void)check(R"({"oneOf": [{"type": "string"}]})", "\"x\""), std::logic_error);
  EXPECT_THROW((void)check(R"({"properties": {"a": {"maxLength": 3}}})", "{}"), std::logic_error)
      << "refused even where the instance never reaches the keyword";
}

TEST(JsonSchema, MalformedSchemaIsAProgrammingError) {
  EXPECT_THROW((void)check(R"({"type": "float"})", "1"), std::logic_error);
  EXPECT_THROW((void)check(R"({"pattern": "(["})", "\"x\""), std::logic_error);
  EXPECT_THROW((void)check(R"({"$ref": "#/$defs/missing"})", "1"), std::logic_error);
  EXPECT_THROW((void)check(R"({"$ref": "other.json#/x"})", "1"), std::logic_error);
  EXPECT_THROW((void)check(R"({"additionalProperties": {"type": "string"}})", "{}"),
               std::logic_error);
}

TEST(JsonSchema, RefCycleIsAProgrammingErrorNotAHang) {
  EXPECT_THROW((void)check(R"({"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"})", "1"),
               std::logic_error);
}

}  // namespace
