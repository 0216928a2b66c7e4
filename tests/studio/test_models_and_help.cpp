// Models and plans in the studio, offscreen: the U-Net example opens in every
// pane (chain-only strategies greyed out, nodes still drawn as the simulator
// says), a bad file leaves the previous model and says why, Plan for budget
// adds a planned pane (and says when the budget is too small), and the Help
// menu lists versions and every shortcut.
#include "app/render/palette.h"
#include "app/studio/export_dialog.h"
#include "app/studio/help_menu.h"
#include "app/studio/main_window.h"
#include "app/studio/pane_widget.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"
#include "tests/studio/studio_test_main.h"

#include <QApplication>
#include <QComboBox>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>

using namespace remat;
using remat::studio::MainWindow;

namespace {

MainWindow::Options fresh() {
    return remat::testing::freshWindow();
}

QAction *exampleAction(MainWindow &window, const QString &fileName) {
    auto *examples = window.findChild<QMenu *>("examplesMenu");
    if (!examples)
        return nullptr;
    for (QAction *a : examples->actions())
        if (a->data().toString().endsWith(fileName))
            return a;
    return nullptr;
}

// The open message box's text, closing it; "" when none is open.
QString takeMessageBox(MainWindow &window) {
    for (QMessageBox *box : window.findChildren<QMessageBox *>())
        if (box->isVisible()) {
            const QString text = box->text();
            box->close();
            return text;
        }
    return {};
}

} // namespace

class TestModelsAndHelp : public QObject {
    Q_OBJECT
private slots:
    void theUNetExampleOpensInEveryPane() {
        MainWindow window(fresh());
        window.resize(1280, 800);
        window.setTheme(studio::Theme::Light);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY2(!MainWindow::examplesDirectory().isEmpty(), "examples found beside the build");
        QAction *unet = exampleAction(window, "unet-batch8.json");
        QVERIFY2(unet, "File > Examples lists the U-Net");
        unet->trigger();
        QVERIFY(!window.session().model()->isChain());
        QCOMPARE(window.session().layers(), window.session().model()->layers());
        QVERIFY(window.session().modelName().contains("U-Net"));
        for (int i = 0; i < window.session().paneCount(); ++i) {
            QTRY_VERIFY_WITH_TIMEOUT(window.session().run(i) != nullptr, 30000); // planners run in the background
            QCOMPARE(window.session().run(i)->model, window.session().model());
            QVERIFY2(window.session().run(i)->strategy->worksOnGraphs(),
                     window.session().run(i)->strategy->name().data());
            // Chain-only strategies cannot be picked for this model.
            auto *combo = window.pane(i)->findChild<QComboBox *>("strategy");
            auto *items = qobject_cast<QStandardItemModel *>(combo->model());
            for (int k = 0; k < combo->count(); ++k)
                QCOMPARE(items->item(k)->isEnabled(),
                         StrategyRegistry::builtin().get(combo->itemText(k).toStdString()).worksOnGraphs());
        }
        // Node centres still show exactly the simulator's resident set.
        const render::Palette palette = render::Palette::light();
        const QColor residentFills[] = {palette.resident, palette.recomputed, palette.current};
        for (const double fraction : {0.2, 0.5, 0.8}) {
            window.player()->seekTime(fraction * window.player()->endTime());
            for (int i = 0; i < window.session().paneCount(); ++i) {
                studio::ScheduleView *view = window.pane(i)->view();
                const QImage image = view->grab().toImage();
                const Timeline &tl = *window.session().run(i)->timeline;
                const StepState state = tl.stateAt(window.player()->stepOf(i));
                for (NodeId id = 0; id < NodeId(tl.model().nodeCount()); ++id) {
                    const QColor pixel =
                        image.pixelColor((view->layout().center(tl.model(), id) * image.devicePixelRatio()).toPoint());
                    const bool drawn =
                        std::find(std::begin(residentFills), std::end(residentFills), pixel) != std::end(residentFills);
                    QCOMPARE(drawn, state.resident[id] != 0);
                }
            }
        }
        // A GIF of this model is captioned with the model's name.
        QVERIFY(studio::ExportGifDialog(window.session(), window.centralWidget())
                    .options()
                    .picture.caption.contains("U-Net"));
        // Changing n returns to a uniform chain; every strategy is available again.
        window.session().setLayers(12);
        QVERIFY(window.session().model()->isChain());
        QVERIFY(window.session().modelName().isEmpty());
        auto *combo = window.pane(0)->findChild<QComboBox *>("strategy");
        for (int k = 0; k < combo->count(); ++k)
            QVERIFY(qobject_cast<QStandardItemModel *>(combo->model())->item(k)->isEnabled());
        window.setTheme(studio::Theme::System);
    }

    void aBadModelFileLeavesThePreviousModel_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("expected"); // part of the message
        QTest::addRow("not json") << QByteArray("{ nodes: ") << QStringLiteral("bad.json");
        QTest::addRow("no nodes") << QByteArray(R"({"format": "remat-model", "version": 1, "nodes": []})")
                                  << QStringLiteral("bad.json");
        QTest::addRow("missing") << QByteArray() << QStringLiteral("missing.json");
        // These crashed the studio (stack overflow) or gave no place.
        QTest::addRow("deep nesting") << "{\"nodes\": " + QByteArray(100000, '[') + QByteArray(100000, ']') + "}"
                                      << QStringLiteral("deep.json: line 1, column 74: nested more than 64 levels");
        QTest::addRow("number overflow")
            << QByteArray(R"({"nodes": [{"name": "in", "bytes": 4}, {"name": "l", "bytes": 1e400}]})")
            << QStringLiteral("huge.json: line 1, column 63: number 1e400 is out of range");
    }

    void aBadModelFileLeavesThePreviousModel() {
        QFETCH(QByteArray, content);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        QString path = dir.filePath(expected.section(':', 0, 0));
        if (!content.isEmpty()) {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(content);
        }
        MainWindow window(fresh());
        const std::shared_ptr<const Model> before = window.session().model();
        const std::shared_ptr<const studio::PaneRun> run = window.session().run(0);
        QVERIFY(!window.openModelFile(path));
        QCOMPARE(window.session().model(), before);
        QCOMPARE(window.session().run(0), run);
        QCOMPARE(window.session().layers(), 16);
        const QString message = takeMessageBox(window);
        QVERIFY2(message.contains(expected), qPrintable(message));
    }

    void planForBudgetAddsAPlannedPane_data() {
        QTest::addColumn<QString>("budget");
        QTest::addColumn<qint64>("peakNodes"); // at most, or -1
        QTest::addColumn<qint64>("peakBytes"); // at most, or -1
        QTest::addRow("nodes") << QStringLiteral("7 nodes") << qint64(7) << qint64(-1);
        QTest::addRow("plain number") << QStringLiteral("9") << qint64(9) << qint64(-1);
        QTest::addRow("bytes") << QStringLiteral("6 B") << qint64(-1) << qint64(6);
    }

    void planForBudgetAddsAPlannedPane() {
        if (!StrategyRegistry::builtin().find("budget"))
            QSKIP("the budget planner is not built in");
        QFETCH(QString, budget);
        QFETCH(qint64, peakNodes);
        QFETCH(qint64, peakBytes);
        MainWindow window(fresh());
        QVERIFY(window.planForBudget(budget));
        QCOMPARE(window.session().paneCount(), 4);
        QTRY_VERIFY_WITH_TIMEOUT(window.session().run(3) != nullptr, 30000);
        QCOMPARE(window.session().paneConfig(3).strategy, std::string("budget"));
        if (peakNodes > 0)
            QVERIFY(window.session().run(3)->summary.peakNodes <= peakNodes);
        if (peakBytes > 0)
            QVERIFY(window.session().run(3)->summary.peakBytes <= peakBytes);
        // The planner's schedule is replayed by the simulator like any other.
        QCOMPARE(
            window.session().run(3)->summary.peakNodes,
            Simulator::summarize(*window.session().model(), window.session().run(3)->timeline->schedule()).peakNodes);
    }

    void aBudgetBelowTheMinimumSaysSo() {
        if (!StrategyRegistry::builtin().find("budget"))
            QSKIP("the budget planner is not built in");
        MainWindow window(fresh());
        QVERIFY(window.planForBudget("1 nodes"));
        QTRY_VERIFY_WITH_TIMEOUT(window.pane(3)->narration().contains("below the minimum feasible"), 30000);
        QVERIFY(!window.session().run(3));
        // Text that is no budget is refused before any pane is added.
        QVERIFY(!window.planForBudget("lots"));
        QCOMPARE(window.session().paneCount(), 4);
        QVERIFY(takeMessageBox(window).contains("lots"));
    }

    // A large dynamic program reports progress in the status bar and stops at Cancel.
    void aLargePlanShowsProgressAndStopsAtCancel() {
        if (!StrategyRegistry::builtin().find("budget"))
            QSKIP("the budget planner is not built in");
        MainWindow window(fresh());
        window.session().setLayers(1000); // about 10 s of planning on one core
        QVERIFY(window.planForBudget("40 nodes"));
        auto *bar = window.statusBar()->findChild<QProgressBar *>();
        QVERIFY(bar && !bar->isHidden());
        QTRY_VERIFY_WITH_TIMEOUT(bar->maximum() == 1000 && bar->value() > 0, 30000); // a fraction, not just busy
        QVERIFY2(window.session().isSimulating(), "still planning when Cancel is pressed");
        QPushButton *cancel = nullptr;
        for (QPushButton *b : window.statusBar()->findChildren<QPushButton *>())
            if (b->text() == "Cancel")
                cancel = b;
        QVERIFY(cancel && !cancel->isHidden());
        QTest::mouseClick(cancel, Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!window.session().isSimulating(),
                                 5000); // the planner stopped, it did not run to the end
        QVERIFY(!window.session().run(3));
        QVERIFY(window.pane(3)->narration().contains("cancelled"));
        QTRY_VERIFY(bar->isHidden());
    }

    void theSessionRemembersTheModelFile() {
        const QString path = QDir(MainWindow::examplesDirectory()).filePath("vgg16-batch32.json");
        {
            MainWindow window(fresh());
            QVERIFY(window.openModelFile(path));
            QVERIFY(window.close());
        }
        MainWindow restored({});
        QCOMPARE(restored.session().modelFile(), QFileInfo(path).absoluteFilePath());
        QCOMPARE(restored.session().layers(), restored.session().model()->layers());
        QVERIFY(restored.session().modelName().contains("VGG"));
        restored.session().setLayers(16); // back to a chain for whoever starts next
        QVERIFY(restored.close());
    }

    void helpListsVersionsAndEveryShortcut() {
        MainWindow window(fresh());
        const QString about = studio::aboutText();
        QVERIFY(about.contains(QString::fromLatin1(qVersion())));
        QVERIFY(about.contains(QStringLiteral("remat %1").arg(QStringLiteral(REMAT_TEST_VERSION))));
        QVERIFY(about.contains(QRegularExpression("Eigen 3\\.\\d+\\.\\d+")));
        QVERIFY(about.contains("CUDA"));
        const QString keys = studio::shortcutsText(*window.menuBar());
        int withShortcut = 0;
        for (QAction *a : window.findChildren<QAction *>()) {
            if (a->isSeparator() || a->menu() || a->text().isEmpty())
                continue;
            bool inMenu = false;
            for (QObject *o : a->associatedObjects())
                inMenu = inMenu || qobject_cast<QMenu *>(o);
            QVERIFY2(inMenu || !a->shortcut().isEmpty(),
                     qPrintable(a->text() + " has neither a menu entry nor a shortcut"));
            if (!a->shortcut().isEmpty()) {
                ++withShortcut;
                QVERIFY2(keys.contains(a->shortcut().toString(QKeySequence::NativeText).toHtmlEscaped()),
                         qPrintable(a->text()));
            }
        }
        QVERIFY(withShortcut >= 8); // player keys, open, add pane, plan, quit...
    }
};

int main(int argc, char **argv) {
    TestModelsAndHelp test;
    return remat::testing::runStudioTest(test, "remat-studio-models-test", argc, argv);
}

#include "test_models_and_help.moc"
