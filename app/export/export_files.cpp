#include "app/export/export_files.h"

#include "app/export/timeline_picture.h"
#include "core/errors.h"
#include "core/report.h"

#include <QBuffer>
#include <QImage>
#include <QSaveFile>

#include <sstream>

namespace remat::exporting {

QString defaultCaption(const Model &model, const std::vector<ExportPane> &panes, const QString &modelName) {
    // The panes' own titles carry the parameters; the caption names them only.
    QStringList titles;
    for (const ExportPane &pane : panes)
        titles << QString::fromStdString(pane.timeline->schedule().strategy);
    const QString names = titles.join(QStringLiteral(", "));
    if (!modelName.isEmpty())
        return QStringLiteral("%1: %2").arg(modelName, names);
    return QStringLiteral("Gradient checkpointing, n = %1: %2").arg(model.layers()).arg(names);
}

void saveFile(const QString &path, const std::string &bytes) {
    QSaveFile file(path);
    file.setDirectWriteFallback(false);
    if (!file.open(QIODevice::WriteOnly))
        throw Error("cannot write '" + path.toStdString() + "': " + file.errorString().toStdString());
    if (file.write(bytes.data(), static_cast<qint64>(bytes.size())) != static_cast<qint64>(bytes.size()) ||
        !file.commit())
        throw Error("cannot write '" + path.toStdString() + "': " + file.errorString().toStdString());
}

void writeTimelineCsvFile(const QString &path, const std::vector<ExportPane> &panes) {
    std::ostringstream out;
    // Timed panes (a link) add the two streams' columns; panes are timed all alike.
    writeTimelineCsvHeader(out, !panes.empty() && panes.front().timeline->timed());
    for (const ExportPane &pane : panes)
        writeTimelineCsv(out, pane.timeline->schedule().strategy, *pane.timeline);
    saveFile(path, out.str());
}

void writeSummaryCsvFile(const QString &path, const Model &model, const std::vector<ExportPane> &panes) {
    std::ostringstream out;
    writeSummaryCsvHeader(out, false, !panes.empty() && panes.front().timeline->timed());
    for (const ExportPane &pane : panes)
        writeSummaryCsvRow(out, pane.row(), model.layers(), false);
    saveFile(path, out.str());
}

void writeSummaryJsonFile(const QString &path, const Model &model, const std::vector<ExportPane> &panes) {
    nlohmann::ordered_json doc;
    doc["n"] = model.layers();
    doc["model"] = modelJson(model);
    doc["strategies"] = nlohmann::ordered_json::array();
    for (const ExportPane &pane : panes)
        doc["strategies"].push_back(summaryJson(pane.row()));
    saveFile(path, doc.dump(2) + "\n");
}

void writePngFile(const QString &path, TimelinePicture &picture, double time) {
    QImage image;
    picture.paint(image, time);
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (!image.save(&buffer, "PNG"))
        throw Error("cannot encode the PNG for '" + path.toStdString() + "'");
    saveFile(path, bytes.toStdString());
}

} // namespace remat::exporting
