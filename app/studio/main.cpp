// remat-studio: animates gradient-checkpointing schedules and compares
// strategies side by side.
#include "app/export/headless_export.h"
#include "app/lesson/headless_grade.h"
#include "app/studio/lesson_controller.h"
#include "app/studio/main_window.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QSaveFile>
#include <QScreen>
#include <QSettings>
#include <QTimer>

#include <cstdio>
#include <iostream>

namespace {

// Renders the window into `path` (PNG) once it is laid out; exit status 0 on success.
int takeScreenshot(QApplication &app, remat::studio::MainWindow &window, const QString &path, double at) {
    // Laid out after a moment; planned once background work (a large model's planners) is done.
    auto *poll = new QTimer(&window);
    QObject::connect(poll, &QTimer::timeout, &window, [&, poll, path, at] {
        if (window.session().isSimulating())
            return;
        poll->stop();
        remat::studio::Player *player = window.player();
        player->seekTime(at * player->endTime());
        QApplication::processEvents();
        const QPixmap pixmap = window.grab();
        QSaveFile file(path);
        const bool ok = file.open(QIODevice::WriteOnly) && pixmap.save(&file, "PNG") && file.commit();
        if (!ok)
            std::fprintf(stderr, "remat-studio: cannot write screenshot '%s': %s\n", qPrintable(path),
                         qPrintable(file.errorString()));
        app.exit(ok ? 0 : 1);
    });
    poll->start(300);
    return app.exec();
}

// Without a display Qt aborts with a page about plugins. Screenshots, --help
// and --version need no display (offscreen); the window does, so say so plainly.
int checkDisplay(int argc, char *argv[]) {
    if (!qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") || !qEnvironmentVariableIsEmpty("DISPLAY") ||
        !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
        return 0;
    for (int i = 1; i < argc; ++i) {
        const QByteArray arg(argv[i]);
        if (arg == "--screenshot" || arg.startsWith("--screenshot=") || arg == "-h" || arg == "--help" || arg == "-v" ||
            arg == "--version") {
            qputenv("QT_QPA_PLATFORM", "offscreen");
            return 0;
        }
    }
    std::fprintf(stderr, "remat-studio: no display (DISPLAY and WAYLAND_DISPLAY are not set); run it on a desktop, "
                         "under xvfb-run, or use --screenshot FILE\n");
    return 2;
}

} // namespace

int main(int argc, char *argv[]) {
    // Grading an exercise (docs/lessons.md) and headless exports (docs/export.md) run before any window exists.
    if (const std::vector<std::string> args(argv, argv + argc); remat::lesson::wantsGrade(args))
        return remat::lesson::runGrade(args, std::cout, std::cerr);
    if (const QStringList args = remat::exporting::argumentList(argc, argv);
        remat::exporting::wantsHeadlessExport(args))
        return remat::exporting::runHeadlessExport(args);
    if (const int status = checkDisplay(argc, argv); status != 0)
        return status;
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("remat"));
    QApplication::setApplicationName(QStringLiteral("remat-studio"));
    QApplication::setApplicationVersion(QStringLiteral("0.1.0"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Watch gradient-checkpointing schedules side by side."));
    const QCommandLineOption help = parser.addHelpOption();
    const QCommandLineOption version = parser.addVersionOption();
    const QStringList scenarioIds = [] {
        QStringList ids;
        for (const auto &s : remat::studio::builtinScenarios())
            ids << s.id;
        return ids;
    }();
    const QCommandLineOption scenario(QStringLiteral("scenario"),
                                      QStringLiteral("Start with an example: %1.").arg(scenarioIds.join(", ")),
                                      QStringLiteral("name"));
    const QCommandLineOption fresh(QStringLiteral("fresh"),
                                   QStringLiteral("Ignore the last session (settings are still saved)."));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                        QStringLiteral("Save a PNG of the window to <file> and quit (for docs)."),
                                        QStringLiteral("file"));
    const QCommandLineOption at(
        QStringLiteral("at"), QStringLiteral("With --screenshot: the moment shown, as a fraction of the run (0 to 1)."),
        QStringLiteral("fraction"), QStringLiteral("0.5"));
    const QCommandLineOption size(QStringLiteral("size"), QStringLiteral("Window size, e.g. 1400x900."),
                                  QStringLiteral("WxH"));
    const QCommandLineOption theme(QStringLiteral("theme"), QStringLiteral("light, dark or system."),
                                   QStringLiteral("name"));
    const QCommandLineOption presentation(QStringLiteral("presentation"),
                                          QStringLiteral("Start in presentation mode (F5 toggles it)."));
    const QCommandLineOption lesson(QStringLiteral("lesson"),
                                    QStringLiteral("Open a lesson (docs/lessons.md); with --export-gif DIR, one GIF "
                                                   "per chapter."),
                                    QStringLiteral("file"));
    const QCommandLineOption chapter(QStringLiteral("chapter"), QStringLiteral("With --lesson: start at chapter N."),
                                     QStringLiteral("N"), QStringLiteral("1"));
    // Read by remat::lesson::runGrade before the window; listed here for --help.
    const QCommandLineOption answer(QStringLiteral("answer"),
                                    QStringLiteral("With --lesson, --chapter and --grade: the forward nodes kept, "
                                                   "e.g. 4,10,13 (\"\" keeps none)."),
                                    QStringLiteral("list"));
    const QCommandLineOption grade(QStringLiteral("grade"),
                                   QStringLiteral("Print the verdict of --answer for the chapter's exercise and quit: "
                                                  "exit 0 when it fits, 1 when over the budget, 2 for a bad answer."));
    const QCommandLineOption measured(
        QStringLiteral("measured"),
        QStringLiteral("Add the framework race's measured points from <file> (bench/framework_race.py --json), as "
                       "Tools > Trade-off curve > Add measured points does; Ctrl+T shows them."),
        QStringLiteral("file"));
    parser.addOptions(
        {scenario, fresh, screenshot, at, size, theme, presentation, lesson, chapter, answer, grade, measured});
    parser.addPositionalArgument(
        QStringLiteral("file"),
        QStringLiteral("A model file to open, as File > Open model does (docs/model-format.md)."),
        QStringLiteral("[file]"));

    auto fail = [](const QString &message) {
        std::fprintf(stderr, "remat-studio: %s\n", qPrintable(message));
        return 2;
    };
    if (!parser.parse(QApplication::arguments()))
        return fail(parser.errorText() + QStringLiteral(" (see remat-studio --help)"));
    if (parser.isSet(help) || parser.isSet(QStringLiteral("help-all"))) {
        // The window's options, then the exports that run without one.
        std::fprintf(stdout, "%s\nHeadless exports (no window or display needed; also --help-export):\n%s",
                     qPrintable(parser.helpText()), remat::exporting::exportUsage());
        return 0;
    }
    if (parser.isSet(version))
        parser.showVersion();
    if (parser.positionalArguments().size() > 1)
        return fail(QStringLiteral("give one model file, got %1: %2")
                        .arg(parser.positionalArguments().size())
                        .arg(parser.positionalArguments().join(QLatin1Char(' '))));
    const QString modelFile = parser.positionalArguments().value(0);
    bool ok = true;
    if (!modelFile.isEmpty() && parser.isSet(lesson))
        return fail(QStringLiteral("give a model file or --lesson, not both (a lesson names its own models)"));
    const int chapterValue = parser.value(chapter).toInt(&ok);
    if (!ok || chapterValue < 1)
        return fail(QStringLiteral("--chapter must be a chapter number from 1, got '%1'").arg(parser.value(chapter)));
    if (parser.isSet(answer))
        return fail(QStringLiteral("--answer needs --grade (and --lesson FILE --chapter N)"));
    if (parser.isSet(chapter) && !parser.isSet(lesson))
        return fail(QStringLiteral("--chapter needs --lesson FILE"));
    const double atValue = parser.value(at).toDouble(&ok);
    if (!ok || atValue < 0 || atValue > 1)
        return fail(QStringLiteral("--at must be a number from 0 to 1, got '%1'").arg(parser.value(at)));
    QSize windowSize(1400, 900);
    if (parser.isSet(size)) {
        const QStringList parts = parser.value(size).split(QLatin1Char('x'));
        bool okW = false, okH = false;
        if (parts.size() == 2)
            windowSize = QSize(parts[0].toInt(&okW), parts[1].toInt(&okH));
        const QSize least = remat::studio::MainWindow::kMinimumSize;
        if (!okW || !okH || windowSize.width() < least.width() || windowSize.height() < least.height() ||
            windowSize.width() > 8000 || windowSize.height() > 8000)
            return fail(QStringLiteral("--size must be WIDTHxHEIGHT from %1x%2 to 8000x8000, got '%3'")
                            .arg(least.width())
                            .arg(least.height())
                            .arg(parser.value(size)));
    }
    if (parser.isSet(scenario) && !scenarioIds.contains(parser.value(scenario)))
        return fail(
            QStringLiteral("unknown scenario '%1'; known: %2").arg(parser.value(scenario), scenarioIds.join(", ")));
    const QStringList themes{QStringLiteral("system"), QStringLiteral("light"), QStringLiteral("dark")};
    if (parser.isSet(theme) && !themes.contains(parser.value(theme)))
        return fail(QStringLiteral("--theme must be light, dark or system, got '%1'").arg(parser.value(theme)));

    remat::studio::MainWindow::Options options;
    options.scenario = parser.value(scenario);
    // A screenshot always shows the scenario asked for (or the default), never a user's session.
    options.restoreSession = !parser.isSet(fresh) && !parser.isSet(screenshot);
    options.autoplay = !parser.isSet(screenshot) && !parser.isSet(lesson); // a lesson waits for the lecturer
    remat::studio::MainWindow window(options);
    if (parser.isSet(theme))
        window.setTheme(static_cast<remat::studio::Theme>(themes.indexOf(parser.value(theme))));
    // A model named on the command line is opened as File > Open model opens it:
    // a screenshot of a file that does not load fails (status 2), a window shows why.
    if (!modelFile.isEmpty()) {
        if (parser.isSet(screenshot)) {
            if (const QString error = window.session().openModelFile(modelFile); !error.isEmpty())
                return fail(error);
            window.session().useStarterPanes();
        } else {
            window.openModelFile(modelFile);
        }
    }
    if (parser.isSet(measured))
        if (const QString error = window.session().loadMeasuredPoints(parser.value(measured)); !error.isEmpty())
            return fail(error);
    // A lesson opens at its first chapter (or --chapter), paused: Page Down starts it.
    if (parser.isSet(lesson)) {
        remat::studio::LessonController *controller = window.lesson();
        const QString error = controller->open(parser.value(lesson), chapterValue - 1);
        if (!error.isEmpty() && parser.isSet(screenshot))
            return fail(error);
        if (!error.isEmpty())
            controller->openWithDialog(parser.value(lesson)); // says why in a dialog
        else if (chapterValue > controller->chapterCount())
            return fail(QStringLiteral("--chapter %1: the lesson has %2 chapters")
                            .arg(chapterValue)
                            .arg(controller->chapterCount()));
    }
    // A first launch has no saved geometry: open large enough for three panes
    // and the chart, within the screen.
    const bool firstLaunch = !QSettings().contains(QStringLiteral("window/geometry"));
    if (parser.isSet(size) || parser.isSet(screenshot))
        window.resize(windowSize);
    else if (!options.restoreSession || firstLaunch)
        window.resize(QApplication::primaryScreen()
                          ? windowSize.boundedTo(QApplication::primaryScreen()->availableSize() * 0.95)
                          : windowSize);
    window.show();
    if (parser.isSet(presentation))
        window.setPresentationMode(true);
    if (parser.isSet(screenshot))
        return takeScreenshot(app, window, parser.value(screenshot), atValue);
    return app.exec();
}
