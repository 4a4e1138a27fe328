// Text output is sized by display columns, not bytes, so that GPU names and
// the like with UTF-8 characters still line up.
#include "output.hpp"

#include <algorithm>
#include <ostream>
#include <stdexcept>

namespace tb::cli {
namespace {

// Counts code points: every byte that is not a UTF-8 continuation byte.
std::size_t displayWidth(const std::string& text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0U) != 0x80U;
  }));
}

}  // namespace

TextTable::TextTable(std::vector<std::string> header) : header_(std::move(header)) {}

void TextTable::addRow(std::vector<std::string> cells) {
  if (cells.size() > header_.size()) {
    throw std::logic_error("TextTable row has more cells than the header");
  }
  cells.resize(header_.size());
  rows_.push_back(std::move(cells));
}

void TextTable::print(std::ostream& out) const {
  std::vector<std::size_t> widths(header_.size(), 0);
  const auto measure = [&widths](const std::vector<std::string>& row) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      widths[i] = std::max(widths[i], displayWidth(row[i]));
    }
  };
  measure(header_);
  for (const auto& row : rows_) measure(row);

  const auto printRow = [&out, &widths](const std::vector<std::string>& row) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line.append(widths[i] - displayWidth(row[i]) + 2, ' ');
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out << line << '\n';
  };
  printRow(header_);
  for (const auto& row : rows_) printRow(row);
}

void printJson(std::ostream& out, const Json& document) {
  // Names typed by the user may not be valid UTF-8; replace such bytes rather
  // than fail after part of the output is decided.
  out << document.dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
}

void printBulletList(std::ostream& out, const std::string& heading,
                     const std::vector<std::string>& items) {
  if (items.empty()) return;
  out << heading << '\n';
  for (const auto& item : items) out << "  - " << item << '\n';
}

}  // namespace tb::cli
