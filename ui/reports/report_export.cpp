// PDF goes through QPdfWriter on a QSaveFile: the writer paints into the
// temporary file and commit() renames it into place, which is the same
// temp-and-rename the core's writeFileAtomically does for the text formats.
#include "ui/reports/report_export.h"

#include <QFileInfo>
#include <QImage>
#include <QPageLayout>
#include <QPageSize>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QSaveFile>
#include <QTextDocument>
#include <QUrl>

#include "ui/qt_text.h"

namespace tb::ui {
namespace {

tb::report::ReportFormat coreFormat(ReportExportFormat format) {
  switch (format) {
    case ReportExportFormat::Markdown: return tb::report::ReportFormat::Markdown;
    case ReportExportFormat::Csv: return tb::report::ReportFormat::Csv;
    case ReportExportFormat::Json: return tb::report::ReportFormat::Json;
    case ReportExportFormat::Html:
    case ReportExportFormat::Pdf: break;
  }
  return tb::report::ReportFormat::Html;
}

tb::Status writePdf(const QString& path, const QString& html) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) {
    return tb::makeError(tb::ErrorKind::Io,
                         toStdString(path) + ": cannot write: " + toStdString(file.errorString()));
  }
  {
    QPdfWriter writer(&file);
    writer.setPageSize(QPageSize(QPageSize::A4));
    writer.setPageMargins(QMarginsF(15, 15, 15, 15), QPageLayout::Millimeter);
    writer.setResolution(96);  // one CSS pixel per device pixel, as the HTML was laid out
    writer.setTitle(QStringLiteral("TrainBench ablation report"));
    writer.setCreator(QStringLiteral("TrainBench Studio"));
    QTextDocument document;
    setReportHtml(document, html);
    document.setPageSize(writer.pageLayout().paintRectPixels(writer.resolution()).size());
    document.print(&writer);
  }  // the writer finishes the PDF when it is destroyed, before the commit
  if (!file.commit()) {
    return tb::makeError(tb::ErrorKind::Io,
                         toStdString(path) + ": cannot write: " + toStdString(file.errorString()));
  }
  return {};
}

}  // namespace

std::vector<ReportExportFormat> reportExportFormats() {
  return {ReportExportFormat::Html, ReportExportFormat::Markdown, ReportExportFormat::Csv,
          ReportExportFormat::Json, ReportExportFormat::Pdf};
}

QString displayName(ReportExportFormat format) {
  switch (format) {
    case ReportExportFormat::Html: return QStringLiteral("HTML");
    case ReportExportFormat::Markdown: return QStringLiteral("Markdown");
    case ReportExportFormat::Csv: return QStringLiteral("CSV");
    case ReportExportFormat::Json: return QStringLiteral("JSON");
    case ReportExportFormat::Pdf: return QStringLiteral("PDF");
  }
  return {};
}

QString fileSuffix(ReportExportFormat format) {
  switch (format) {
    case ReportExportFormat::Html: return QStringLiteral("html");
    case ReportExportFormat::Markdown: return QStringLiteral("md");
    case ReportExportFormat::Csv: return QStringLiteral("csv");
    case ReportExportFormat::Json: return QStringLiteral("json");
    case ReportExportFormat::Pdf: return QStringLiteral("pdf");
  }
  return {};
}

std::optional<ReportExportFormat> formatFromPath(const QString& path) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == QLatin1String("htm")) return ReportExportFormat::Html;
  if (suffix == QLatin1String("markdown")) return ReportExportFormat::Markdown;
  for (ReportExportFormat format : reportExportFormats()) {
    if (fileSuffix(format) == suffix) return format;
  }
  return std::nullopt;
}

bool isRichText(ReportExportFormat format) {
  return format == ReportExportFormat::Html || format == ReportExportFormat::Pdf;
}

QString renderReportText(const tb::bench::AblationResults& results, ReportExportFormat format,
                         const tb::report::ReportCharts& charts) {
  return toQString(tb::report::renderReport(results, coreFormat(format), charts));
}

void setReportHtml(QTextDocument& document, const QString& html) {
  static const QRegularExpression dataUrl(
      QStringLiteral("src=\"data:([a-z+/.-]+);base64,([A-Za-z0-9+/=]+)\""));
  QString rewritten;
  qsizetype last = 0;
  int count = 0;
  QRegularExpressionMatchIterator matches = dataUrl.globalMatch(html);
  while (matches.hasNext()) {
    const QRegularExpressionMatch match = matches.next();
    const QImage image = QImage::fromData(QByteArray::fromBase64(match.captured(2).toLatin1()));
    rewritten += html.mid(last, match.capturedStart() - last);
    last = match.capturedEnd();
    if (image.isNull()) {  // an image Qt cannot decode keeps its data: URL
      rewritten += match.captured(0);
      continue;
    }
    const QString name = QStringLiteral("tb-chart-%1").arg(++count);
    document.addResource(QTextDocument::ImageResource, QUrl(name), image);
    rewritten += QStringLiteral("src=\"%1\"").arg(name);
  }
  rewritten += html.mid(last);
  document.setHtml(rewritten);
}

tb::Status exportReport(const QString& path, const tb::bench::AblationResults& results,
                        ReportExportFormat format, const tb::report::ReportCharts& charts) {
  if (format == ReportExportFormat::Pdf) {
    return writePdf(path, renderReportText(results, ReportExportFormat::Html, charts));
  }
  return tb::report::writeReport(std::filesystem::path(toStdString(path)), results,
                                 coreFormat(format), charts);
}

}  // namespace tb::ui
