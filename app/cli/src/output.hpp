// How commands print: aligned text tables for people and one JSON document for
// programs. Keeping both here makes every command look and behave the same.
#pragma once

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <string>
#include <vector>

namespace tb::cli {

/// JSON that keeps keys in the order they were added, so documents read in
/// the order docs/CLI.md lists their fields.
using Json = nlohmann::ordered_json;

/// A table whose columns are padded to their widest cell. The last column is
/// not padded, so long reasons do not leave trailing spaces.
class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header);

  /// Adds a row; missing cells print empty, extra cells are an error (throws).
  void addRow(std::vector<std::string> cells);
  void print(std::ostream& out) const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

/// Prints the document, indented, followed by a newline: the whole of
/// stdout for a --json run.
void printJson(std::ostream& out, const Json& document);

/// Prints "  - item" lines under a heading; prints nothing when empty.
void printBulletList(std::ostream& out, const std::string& heading,
                     const std::vector<std::string>& items);

}  // namespace tb::cli
