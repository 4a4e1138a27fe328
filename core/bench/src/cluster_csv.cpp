// A small RFC 4180 reader (quoted fields, doubled quotes, CRLF) is enough for
// what spreadsheets export; unknown columns are refused so that a misspelt
// header ("tokens_per_sec") is reported instead of silently ignored.
#include <algorithm>
#include <charconv>
#include <cmath>

#include "cluster_rows.hpp"
#include "tb/bench/cluster_import.hpp"
#include "tb/common/text.hpp"

namespace tb::bench {

namespace {

using detail::ClusterRow;

struct CsvLine {
  int number = 0;
  std::vector<std::string> fields;
};

// Splits into records; a quoted field may hold commas, quotes and newlines.
Expected<std::vector<CsvLine>> readRecords(std::string_view text, const std::string& origin) {
  std::vector<CsvLine> lines;
  CsvLine current{1, {}};
  std::string field;
  bool quoted = false;
  bool fieldStarted = false;
  int line = 1;
  const auto endRecord = [&] {
    current.fields.push_back(field);
    const bool blank = current.fields.size() == 1 && trim(current.fields.front()).empty();
    const bool comment = !current.fields.front().empty() && current.fields.front().front() == '#';
    if (!blank && !comment) lines.push_back(std::move(current));
    current = CsvLine{line, {}};
    field.clear();
    fieldStarted = false;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field.push_back('"');
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        if (c == '\n') ++line;
        field.push_back(c);
      }
      continue;
    }
    if (c == '"' && !fieldStarted) {
      quoted = true;
      fieldStarted = true;
    } else if (c == ',') {
      current.fields.push_back(field);
      field.clear();
      fieldStarted = false;
    } else if (c == '\n') {
      ++line;
      endRecord();
    } else if (c != '\r') {
      field.push_back(c);
      fieldStarted = true;
    }
  }
  if (quoted) {
    return makeError(ErrorKind::Parse, origin + ":" + std::to_string(current.number) +
                                           ": a quoted field is never closed");
  }
  if (!field.empty() || !current.fields.empty()) endRecord();
  return lines;
}

Expected<double> number(std::string_view text, const std::string& where, const std::string& name) {
  const std::string_view value = trim(text);
  double parsed = 0.0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), parsed);
  if (ec != std::errc{} || end != value.data() + value.size() || !std::isfinite(parsed) ||
      parsed < 0.0) {
    return makeError(ErrorKind::Parse, where + ": field " + name + ": '" + std::string(value) +
                                           "' is not a non-negative number");
  }
  return parsed;
}

Expected<std::optional<double>> optionalNumber(const std::vector<std::string>& fields, int column,
                                               const std::string& where, const std::string& name) {
  if (column < 0) return std::optional<double>{};
  const std::string_view value = trim(fields[static_cast<std::size_t>(column)]);
  if (value.empty()) return std::optional<double>{};
  Expected<double> parsed = number(value, where, name);
  if (!parsed) return std::move(parsed).error();
  return std::optional<double>{*parsed};
}

}  // namespace

Expected<std::vector<ConfigurationResult>> parseClusterCsv(std::string_view text,
                                                           std::string_view origin) {
  const std::string file(origin);
  Expected<std::vector<CsvLine>> records = readRecords(text, file);
  if (!records) return std::move(records).error();
  if (records->empty()) return makeError(ErrorKind::Parse, file + ": empty file, no header");
  const CsvLine& header = records->front();
  const std::vector<std::string>& known = detail::clusterFieldNames();
  std::vector<int> column(known.size(), -1);
  for (std::size_t i = 0; i < header.fields.size(); ++i) {
    const std::string name = toLower(trim(header.fields[i]));
    const auto found = std::find(known.begin(), known.end(), name);
    if (found == known.end()) {
      return makeError(ErrorKind::Parse, file + ":" + std::to_string(header.number) +
                                             ": unknown column '" + name +
                                             "' (known: " + joinList(known) + ")");
    }
    column[static_cast<std::size_t>(found - known.begin())] = static_cast<int>(i);
  }
  for (std::size_t required = 0; required < 3; ++required) {
    if (column[required] < 0) {
      return makeError(ErrorKind::Parse, file + ":" + std::to_string(header.number) +
                                             ": missing column '" + known[required] + "'");
    }
  }
  std::vector<ClusterRow> rows;
  for (std::size_t r = 1; r < records->size(); ++r) {
    const CsvLine& record = (*records)[r];
    const std::string where = file + ":" + std::to_string(record.number);
    if (record.fields.size() != header.fields.size()) {
      return makeError(ErrorKind::Parse, where + ": " + std::to_string(record.fields.size()) +
                                             " fields, the header has " +
                                             std::to_string(header.fields.size()));
    }
    const auto cell = [&](std::size_t index) {
      return std::string(trim(record.fields[static_cast<std::size_t>(column[index])]));
    };
    ClusterRow row;
    row.where = where;
    row.label = cell(0);
    row.model = cell(1);
    const std::optional<long long> gpus = parseUnsigned(cell(2));
    if (!gpus || *gpus < 1 || *gpus > 1'000'000) {
      return makeError(ErrorKind::Parse,
                       where + ": field gpus: '" + cell(2) + "' is not a positive integer");
    }
    row.gpus = static_cast<int>(*gpus);
    const std::string names[] = {"tokens_per_s_per_gpu", "tflops_per_gpu", "peak_memory_gib",
                                 "step_time_s"};
    std::optional<double>* targets[] = {&row.tokensPerSPerGpu, &row.tflopsPerGpu,
                                        &row.peakMemoryGib, &row.stepTimeS};
    for (std::size_t k = 0; k < 4; ++k) {
      Expected<std::optional<double>> value =
          optionalNumber(record.fields, column[3 + k], where, names[k]);
      if (!value) return std::move(value).error();
      *targets[k] = *value;
    }
    rows.push_back(std::move(row));
  }
  if (rows.empty()) return makeError(ErrorKind::Parse, file + ": a header but no runs");
  return detail::configurationsFromRows(rows);
}

}  // namespace tb::bench
