// Read with type checks throughout: the document comes from another program,
// and a wrong field must become "no charts", never an exception.
#include "tb/report/chart_document.hpp"

#include <nlohmann/json.hpp>

namespace tb::report {
namespace {

using nlohmann::json;

std::string textOr(const json& object, const char* key, std::string fallback = {}) {
  const auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : fallback;
}

}  // namespace

std::string chartDocument(const ReportCharts& charts) {
  json list = json::array();
  for (const ReportChart& chart : charts.charts) {
    list.push_back({{"title", chart.title}, {"mime_type", chart.mimeType}, {"data", chart.data}});
  }
  return json{{"charts", std::move(list)}, {"note", charts.note}}.dump(
      -1, ' ', false, json::error_handler_t::replace);
}

Expected<ReportCharts> parseChartDocument(std::string_view text) {
  const json document = json::parse(text, nullptr, false);
  const auto charts = document.is_object() ? document.find("charts") : document.end();
  if (!document.is_object() || charts == document.end() || !charts->is_array()) {
    return makeError(ErrorKind::Parse, "not a chart document (no \"charts\" array)");
  }
  ReportCharts drawn;
  drawn.note = textOr(document, "note");
  for (const json& chart : *charts) {
    if (!chart.is_object() || textOr(chart, "data").empty()) continue;
    drawn.charts.push_back({textOr(chart, "title"), textOr(chart, "mime_type", "image/svg+xml"),
                            textOr(chart, "data")});
  }
  return drawn;
}

}  // namespace tb::report
