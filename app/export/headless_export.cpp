#include "app/export/headless_export.h"

#include "app/export/export_files.h"
#include "app/export/lesson_export.h"
#include "app/export/timeline_gif_export.h"
#include "core/errors.h"
#include "core/machine_flags.h"
#include "core/model_io.h"
#include "core/report.h"
#include "core/strategy_registry.h"
#include "core/units.h"

#include <QFileInfo>
#include <QGuiApplication>

#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>

namespace remat::exporting {

namespace {

const char *const kUsage = "usage: remat-studio [MODEL_FILE] --export-gif FILE [--export-png FILE]\n"
                           "                    [--export-csv FILE] [--export-summary-csv FILE] [--export-json FILE]\n"
                           "  model:     --n N (16) [--node-bytes B] | --model FILE | MODEL_FILE\n"
                           "  link:      --link BW [--latency T] [--forward-time T [--backward-time T]]\n"
                           "             [--device-rate R] [--device-budget B] [--host-budget B]: every pane\n"
                           "             timed on a compute and a copy stream, with a host lane (docs/cli.md)\n"
                           "  panes:     --strategies LIST (store-all,recompute-all,periodic; at most 4)\n"
                           "             [--every K] [--checkpoints LIST] [--pane-only] [--sync cost|ops]\n"
                           "             [--budget B (budget, dtr: 12 nodes or 2GiB)] [--heuristic dtr|cost-per-byte]\n"
                           "  picture:   --width PX (960) [--height PX (auto)] [--theme light|dark]\n"
                           "             [--caption TEXT | --no-caption]\n"
                           "  animation: --fps F (8) --loops N (0 = forever) --hold MS (2000)\n"
                           "             --title-frame MS (2000; 0 = none)\n"
                           "             --max-frames M (300) | --frame-every K | --all-frames\n"
                           "  snapshot:  --at T (time on the axis for --export-png; default the end)\n"
                           "  lesson:    --lesson FILE --export-gif DIR: one GIF per chapter (DIR/01-title.gif...),\n"
                           "             with the picture and animation options above\n";

bool isExportOption(const QString &arg) {
    return arg.startsWith(QStringLiteral("--export-"));
}

// The options that take a value, and the flags.
const QStringList kValued = {"--export-gif",   "--export-png",
                             "--export-csv",   "--export-summary-csv",
                             "--export-json",  "--n",
                             "--node-bytes",   "--model",
                             "--strategies",   "--every",
                             "--checkpoints",  "--sync",
                             "--width",        "--height",
                             "--theme",        "--caption",
                             "--fps",          "--loops",
                             "--hold",         "--title-frame",
                             "--max-frames",   "--frame-every",
                             "--at",           "--lesson",
                             "--link",         "--latency",
                             "--forward-time", "--backward-time",
                             "--device-rate",  "--device-budget",
                             "--host-budget",  "--budget",
                             "--heuristic"};
const QStringList kFlags = {"--pane-only", "--no-caption", "--all-frames", "--help-export"};

struct Parsed {
    std::map<QString, QString> values;
    std::map<QString, bool> flags;
    bool has(const char *name) const { return values.count(QString::fromLatin1(name)) != 0; }
    QString value(const char *name, const QString &fallback = {}) const {
        const auto it = values.find(QString::fromLatin1(name));
        return it == values.end() ? fallback : it->second;
    }
    bool flag(const char *name) const { return flags.count(QString::fromLatin1(name)) != 0; }
};

Parsed parse(const QStringList &args) {
    Parsed out;
    for (qsizetype i = 1; i < args.size(); ++i) {
        QString name = args[i];
        QString value;
        bool inlineValue = false;
        if (const qsizetype eq = name.indexOf(QLatin1Char('=')); name.startsWith(QStringLiteral("--")) && eq > 0) {
            value = name.mid(eq + 1);
            name = name.left(eq);
            inlineValue = true;
        }
        if (kFlags.contains(name)) {
            if (inlineValue)
                throw InvalidArgument(name.toStdString() + " takes no value");
            out.flags[name] = true;
        } else if (kValued.contains(name)) {
            if (!inlineValue) {
                if (i + 1 >= args.size())
                    throw InvalidArgument(name.toStdString() + " needs a value");
                value = args[++i];
            }
            if (out.values.count(name))
                throw InvalidArgument(name.toStdString() + " given twice");
            out.values[name] = value;
        } else if (!name.startsWith(QLatin1Char('-'))) {
            // `remat-studio model.json --export-gif ...`: the file the window would open.
            if (out.values.count(QStringLiteral("--model")))
                throw InvalidArgument("the model file is given twice ('" + name.toStdString() + "')");
            out.values[QStringLiteral("--model")] = name;
        } else {
            throw InvalidArgument("unknown option '" + name.toStdString() +
                                  "' for a headless export; see remat-studio --help-export");
        }
    }
    return out;
}

long long integer(const Parsed &p, const char *name, long long fallback, long long min, long long max) {
    if (!p.has(name))
        return fallback;
    const QString text = p.value(name);
    bool ok = false;
    const long long v = text.toLongLong(&ok);
    if (!ok || v < min || v > max)
        throw InvalidArgument(std::string(name) + " must be an integer from " + std::to_string(min) + " to " +
                              std::to_string(max) + ", got '" + text.toStdString() + "'");
    return v;
}

double real(const Parsed &p, const char *name, double fallback, double minExclusive, double max) {
    if (!p.has(name))
        return fallback;
    const QString text = p.value(name);
    bool ok = false;
    const double v = text.toDouble(&ok);
    if (!ok || !std::isfinite(v) || v <= minExclusive || v > max)
        throw InvalidArgument(std::string(name) + " must be a number above " + numberText(minExclusive) +
                              " and at most " + numberText(max) + ", got '" + text.toStdString() + "'");
    return v;
}

std::vector<std::string> splitList(const QString &text, const char *name) {
    std::vector<std::string> out;
    for (const QString &part : text.split(QLatin1Char(','))) {
        const QString item = part.trimmed();
        if (item.isEmpty())
            throw InvalidArgument(std::string(name) + " has an empty item in '" + text.toStdString() + "'");
        out.push_back(item.toStdString());
    }
    return out;
}

struct LoadedModel {
    std::shared_ptr<const Model> model;
    QString name;        // the model file's own name, or "" for a chain
    MachineSpec machine; // the model file's link, device and host keys
};

LoadedModel buildModel(const Parsed &p) {
    if (p.has("--model")) {
        for (const char *chainOnly : {"--n", "--node-bytes", "--forward-time", "--backward-time"})
            if (p.has(chainOnly))
                throw InvalidArgument(std::string(chainOnly) +
                                      " describes a chain; it cannot be combined with --model");
        ModelFile file = loadModelFile(p.value("--model").toStdString());
        const QString name = QString::fromStdString(file.name.empty() ? p.value("--model").toStdString() : file.name);
        return {std::make_shared<const Model>(std::move(file.model)), name, file.machine};
    }
    const int n = static_cast<int>(integer(p, "--n", 16, 1, Model::kMaxLayers));
    ChainSpec spec;
    if (p.has("--node-bytes"))
        spec.nodeBytes = parsePositiveBytes(p.value("--node-bytes").toStdString(), "--node-bytes");
    // `remat simulate`'s chain: with --forward-time its costs are seconds.
    return {std::make_shared<const Model>(chainWithTimes(n, spec, p.value("--forward-time").toStdString(),
                                                         p.value("--backward-time").toStdString())),
            QString(),
            {}};
}

// --link and its companions, read as `remat simulate` reads them (core/machine_flags.h).
void applyMachine(const Parsed &p, const LoadedModel &loaded, StrategyParams &params) {
    MachineFlags flags;
    flags.link = p.value("--link").toStdString();
    flags.latency = p.value("--latency").toStdString();
    flags.deviceRate = p.value("--device-rate").toStdString();
    flags.deviceBudget = p.value("--device-budget").toStdString();
    flags.hostBudget = p.value("--host-budget").toStdString();
    params.machine = machineFromFlags(*loaded.model, loaded.machine, flags);
    params.budgetBytes = deviceBudgetFromFlags(flags);
    if (!params.budgetBytes)
        params.budgetBytes = loaded.machine.deviceBudgetBytes;
}

struct Plan {
    QString gif, png, csv, summaryCsv, json;
    std::optional<double> at;
};

void say(const QString &line) {
    std::fprintf(stdout, "%s\n", line.toLocal8Bit().constData());
    std::fflush(stdout);
}

void quietQtMessages(QtMsgType type, const QMessageLogContext &, const QString &message) {
    if (type == QtCriticalMsg || type == QtFatalMsg)
        std::fprintf(stderr, "remat-studio: Qt: %s\n", message.toLocal8Bit().constData());
}

// The picture and animation options (for a timeline GIF, and each chapter of a lesson).
GifExportOptions gifOptions(const Parsed &p) {
    GifExportOptions options;
    const QString sync = p.value("--sync", QStringLiteral("cost"));
    if (sync != QStringLiteral("cost") && sync != QStringLiteral("ops"))
        throw InvalidArgument("--sync must be 'cost' or 'ops', got '" + sync.toStdString() + "'");
    options.picture.axis = sync == QStringLiteral("ops") ? render::TimeAxis::Ops : render::TimeAxis::Cost;
    const QString theme = p.value("--theme", QStringLiteral("light"));
    if (theme != QStringLiteral("light") && theme != QStringLiteral("dark"))
        throw InvalidArgument("--theme must be 'light' or 'dark', got '" + theme.toStdString() + "'");
    options.picture.palette = render::Palette::forDarkMode(theme == QStringLiteral("dark"));
    options.picture.paneOnly = p.flag("--pane-only");
    const int width = static_cast<int>(integer(p, "--width", 960, 160, 4096));
    const int autoHeight = TimelinePicture::defaultSize(width, options.picture.paneOnly).height();
    const int height = static_cast<int>(integer(p, "--height", autoHeight, 90, 4096));
    options.picture.size = QSize(width, height);
    if (p.has("--caption") && p.flag("--no-caption"))
        throw InvalidArgument("--caption and --no-caption exclude each other");
    options.fps = real(p, "--fps", 8, 0, 50);
    options.loops = static_cast<int>(integer(p, "--loops", 0, 0, 65536));
    options.finalHoldMs = static_cast<int>(integer(p, "--hold", 2000, 0, 655350));
    options.titleFrameMs = static_cast<int>(integer(p, "--title-frame", kDefaultTitleFrameMs, 0, 655350));
    const int sampleModes = int(p.has("--max-frames")) + int(p.has("--frame-every")) + int(p.flag("--all-frames"));
    if (sampleModes > 1)
        throw InvalidArgument("--max-frames, --frame-every and --all-frames exclude each other");
    if (p.flag("--all-frames")) {
        options.sampling.mode = FrameSampling::Mode::EveryOp;
    } else if (p.has("--frame-every")) {
        options.sampling.mode = FrameSampling::Mode::EveryKth;
        options.sampling.every = static_cast<int>(integer(p, "--frame-every", 1, 1, 1'000'000'000));
    } else {
        options.sampling.mode = FrameSampling::Mode::MaxFrames;
        options.sampling.maxFrames = static_cast<int>(integer(p, "--max-frames", 300, 2, 100'000));
    }
    return options;
}

// A lesson's chapters, one GIF each, into the folder --export-gif names.
int exportLesson(const Parsed &p) {
    for (const char *other : {"--export-png",
                              "--export-csv",
                              "--export-summary-csv",
                              "--export-json",
                              "--n",
                              "--node-bytes",
                              "--model",
                              "--strategies",
                              "--every",
                              "--checkpoints",
                              "--sync",
                              "--caption",
                              "--at",
                              "--link",
                              "--latency",
                              "--forward-time",
                              "--backward-time",
                              "--device-rate",
                              "--device-budget",
                              "--host-budget",
                              "--budget",
                              "--heuristic"})
        if (p.has(other))
            throw InvalidArgument(std::string(other) + " does not go with --lesson: a lesson names its own models, "
                                                       "panes, clocks and captions, and exports one GIF per chapter");
    for (const char *flag : {"--pane-only", "--no-caption"})
        if (p.flag(flag))
            throw InvalidArgument(std::string(flag) + " does not go with --lesson");
    const QString directory = p.value("--export-gif");
    if (directory.isEmpty())
        throw InvalidArgument("--lesson exports one GIF per chapter: give --export-gif FOLDER");
    if (QFileInfo(directory).exists() && !QFileInfo(directory).isDir())
        throw InvalidArgument("--export-gif '" + directory.toStdString() +
                              "' is a file; with --lesson it names a folder for the chapters' GIFs");
    const GifExportOptions options = gifOptions(p);
    const lesson::Lesson lesson = lesson::loadLessonFile(p.value("--lesson").toStdString());
    LessonGifExport job(lesson, directory, options); // every chapter planned before anything is written
    const std::vector<GifExportResult> results = job.run();
    for (std::size_t c = 0; c < results.size(); ++c) {
        const LessonGifExport::Chapter &chapter = job.chapters()[c];
        say(QStringLiteral("wrote %1: %2 frames, %3%4")
                .arg(chapter.path)
                .arg(results[c].framesWritten)
                .arg(QString::fromStdString(formatBytes(results[c].bytes)))
                .arg(chapter.skippedStops.isEmpty()
                         ? QString()
                         : QStringLiteral(" (stops that never happen: %1)").arg(chapter.skippedStops.join(", "))));
    }
    return 0;
}

} // namespace

const char *exportUsage() {
    return kUsage;
}

bool wantsHeadlessExport(const QStringList &args) {
    for (qsizetype i = 1; i < args.size(); ++i)
        if (isExportOption(args[i]) || args[i] == QStringLiteral("--help-export"))
            return true;
    return false;
}

QStringList argumentList(int argc, char **argv) {
    QStringList out;
    for (int i = 0; i < argc; ++i)
        out << QString::fromLocal8Bit(argv[i]);
    return out;
}

int runHeadlessExport(const QStringList &args) {
    // Fonts and painting need a QGuiApplication, not a display.
    std::unique_ptr<QGuiApplication> app;
    // Errors are one line on stderr: Qt's own chatter on a machine without a
    // desktop session (XDG_RUNTIME_DIR, fonts) would break that. Its critical
    // messages still show.
    qInstallMessageHandler(quietQtMessages);
    if (!QCoreApplication::instance()) {
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
        static int argc = 1;
        static char name[] = "remat-studio";
        static char *argv[] = {name, nullptr};
        app = std::make_unique<QGuiApplication>(argc, argv);
    }
    try {
        const Parsed p = parse(args);
        if (p.flag("--help-export")) {
            std::fputs(exportUsage(), stdout);
            return 0;
        }
        if (p.has("--lesson"))
            return exportLesson(p);
        Plan plan{p.value("--export-gif"),         p.value("--export-png"),  p.value("--export-csv"),
                  p.value("--export-summary-csv"), p.value("--export-json"), std::nullopt};
        for (const char *name :
             {"--export-gif", "--export-png", "--export-csv", "--export-summary-csv", "--export-json"})
            if (p.has(name) && p.value(name).isEmpty())
                throw InvalidArgument(std::string(name) + " needs a file name");
        if (plan.gif.isEmpty() && plan.png.isEmpty() && plan.csv.isEmpty() && plan.summaryCsv.isEmpty() &&
            plan.json.isEmpty())
            throw InvalidArgument("nothing to export; give --export-gif, --export-png, --export-csv, "
                                  "--export-summary-csv or --export-json");

        // Panes.
        const LoadedModel loaded = buildModel(p);
        const std::shared_ptr<const Model> &model = loaded.model;
        StrategyParams params;
        applyMachine(p, loaded, params);
        if (p.has("--budget")) {
            // As `remat simulate --budget`: a plain number counts nodes, a size with a unit bytes.
            if (p.has("--device-budget"))
                throw InvalidArgument("--budget and --device-budget exclude each other");
            const QString budget = p.value("--budget");
            bool plain = false;
            const qlonglong nodes = budget.toLongLong(&plain);
            if (plain)
                params.budgetNodes = integer(p, "--budget", nodes, 1, std::int64_t{1} << 40);
            else
                params.budgetBytes = parsePositiveBytes(budget.toStdString(), "--budget");
        }
        if (p.has("--heuristic"))
            params.heuristic = p.value("--heuristic").toStdString();
        if (p.has("--every"))
            params.every = static_cast<int>(integer(p, "--every", 1, 1, model->layers()));
        if (p.has("--checkpoints")) {
            std::vector<int> checkpoints;
            for (const std::string &item : splitList(p.value("--checkpoints"), "--checkpoints")) {
                bool ok = false;
                const int v = QString::fromStdString(item).toInt(&ok);
                if (!ok)
                    throw InvalidArgument("--checkpoints must list integers, got '" + item + "'");
                checkpoints.push_back(v);
            }
            params.checkpoints = std::move(checkpoints);
        }
        const std::vector<std::string> names =
            splitList(p.value("--strategies", QStringLiteral("store-all,recompute-all,periodic")), "--strategies");
        if (names.size() > 4)
            throw InvalidArgument("--strategies lists " + std::to_string(names.size()) +
                                  " strategies; the view holds at most 4");
        for (const std::string &name : names)
            StrategyRegistry::builtin().get(name); // unknown names fail before any planning

        GifExportOptions options = gifOptions(p);
        if (p.has("--at")) {
            if (plan.png.isEmpty())
                throw InvalidArgument("--at needs --export-png (it picks the moment of the snapshot)");
            plan.at = real(p, "--at", 0, -1, 1e300);
        }

        std::vector<ExportPane> panes = simulatePanes(model, names, params);
        if (!p.flag("--no-caption"))
            options.picture.caption =
                p.has("--caption") ? p.value("--caption") : defaultCaption(*model, panes, loaded.name);
        // Planning the job checks the remaining options before anything is written.
        TimelineGifExport job(panes, options);
        if (plan.at && *plan.at > job.picture().endTime())
            throw InvalidArgument("--at " + numberText(*plan.at) + " is past the end of the timeline (" +
                                  numberText(job.picture().endTime()) + ")");

        if (!plan.csv.isEmpty())
            writeTimelineCsvFile(plan.csv, panes);
        if (!plan.summaryCsv.isEmpty())
            writeSummaryCsvFile(plan.summaryCsv, *model, panes);
        if (!plan.json.isEmpty())
            writeSummaryJsonFile(plan.json, *model, panes);
        if (!plan.png.isEmpty())
            writePngFile(plan.png, job.picture(), plan.at.value_or(job.picture().endTime()));
        if (!plan.gif.isEmpty()) {
            const GifExportResult result = job.run(plan.gif);
            say(QStringLiteral("wrote %1: %2 frames, %3")
                    .arg(plan.gif)
                    .arg(result.framesWritten)
                    .arg(QString::fromStdString(formatBytes(result.bytes))));
        }
        return 0;
    } catch (const Error &e) {
        std::fprintf(stderr, "remat-studio: %s\n", e.what());
        return 2;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "remat-studio: export failed: %s\n", e.what());
        return 2;
    }
}

} // namespace remat::exporting
