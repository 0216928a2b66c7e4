#pragma once
// The still exports: a PNG of the view at one moment, and each pane's
// timeline and summary as CSV or JSON in the CLI's schemas (core/report.h,
// docs/cli.md). Every file goes through a QSaveFile: complete or untouched.
#include "app/export/export_pane.h"

#include <QString>

#include <string>
#include <vector>

namespace remat::exporting {

class TimelinePicture;

// "Gradient checkpointing, n = 16: store-all, recompute-all, periodic".
// With a model file's `modelName`: "VGG-16, batch 32: store-all, periodic".
QString defaultCaption(const Model &model, const std::vector<ExportPane> &panes, const QString &modelName = {});

// `remat simulate --csv --timeline`: strategy,step,op,node,resident_count,resident,bytes.
void writeTimelineCsvFile(const QString &path, const std::vector<ExportPane> &panes);
// `remat simulate --csv`: one row per pane.
void writeSummaryCsvFile(const QString &path, const Model &model, const std::vector<ExportPane> &panes);
// `remat simulate --json`: {n, model, strategies: [...]}.
void writeSummaryJsonFile(const QString &path, const Model &model, const std::vector<ExportPane> &panes);
// The picture at `time`.
void writePngFile(const QString &path, TimelinePicture &picture, double time);

// Writes `bytes` to `path` atomically; throws remat::Error naming the path.
void saveFile(const QString &path, const std::string &bytes);

} // namespace remat::exporting
