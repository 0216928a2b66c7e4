// The current pane as a user picks it, in the window (offscreen): a click in
// a pane or Ctrl+Tab from whatever has focus selects it, the selected pane is
// framed, and the Blocks strip of an op-level model shows that pane's
// Schedule and names it; the selection survives closing and reopening. And a
// dtr pane's heuristic control re-plans it through the session as the
// strategy itself does with that heuristic, and is restored.
#include "app/render/op_block_layout.h"
#include "app/studio/main_window.h"
#include "app/studio/op_block_view.h"
#include "app/studio/pane_widget.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"
#include "tests/studio/studio_test_main.h"

#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QtTest>

using namespace remat;
using remat::studio::MainWindow;

namespace {

const char *const kOpPanes[] = {"store-all", "per-block", "save-matmuls"};

// The op-level GPT-2 example with store-all, per-block and save-matmuls, all simulated.
void showOpLevelPanes(MainWindow &window) {
    studio::Session &session = window.session();
    QVERIFY(window.openModelFile(QDir(MainWindow::examplesDirectory()).filePath("gpt2-2layers-seq1024-ops.json")));
    // The op-level example opens with a fourth pane, the op-level plan (docs/studio.md): three are studied here.
    while (session.paneCount() > 3)
        session.removePane(session.paneCount() - 1);
    session.cancelSimulation(); // its op-level search too, which the panes below do not wait for
    for (int i = 0; i < 3; ++i) {
        studio::PaneConfig config;
        config.strategy = kOpPanes[i];
        session.setPaneConfig(i, config);
    }
    QTRY_VERIFY_WITH_TIMEOUT(!session.isSimulating() && session.run(0) && session.run(1) && session.run(2), 20000);
}

// The strip shows pane `index`: its run's timeline, the fates of that pane's
// strategy's own schedule, its number and strategy in the title, tooltip and
// accessible name; the pane alone is framed.
void checkStripShows(MainWindow &window, int index) {
    studio::Session &session = window.session();
    auto *strip = window.findChild<studio::OpBlockView *>("opBlockView");
    QVERIFY(strip && strip->isVisible());
    QCOMPARE(session.currentPane(), index);
    QCOMPARE(strip->shownTimeline(), session.run(index)->timeline);
    const auto direct =
        std::make_shared<const Schedule>(StrategyRegistry::builtin()
                                             .get(session.paneConfig(index).strategy)
                                             .makeSchedule(*session.model(), session.paneConfig(index).params));
    QVERIFY(strip->shownTimeline()->schedule().ops == direct->ops);
    QVERIFY(render::opFates(*strip->shownTimeline()) ==
            render::opFates(Simulator::replay(session.model(), direct).timeline));
    const QString named = QStringLiteral("pane %1 (%2)").arg(index + 1).arg(kOpPanes[index]);
    QVERIFY2(strip->title().contains(named), qPrintable(strip->title()));
    QVERIFY(strip->toolTip().contains(named));
    QVERIFY(strip->accessibleName().contains(named));
    for (int i = 0; i < session.paneCount(); ++i) {
        QCOMPARE(window.pane(i)->isCurrent(), i == index);
        QCOMPARE(window.pane(i)->accessibleName().contains("selected"), i == index);
    }
}

void showActive(MainWindow &window) {
    window.resize(1280, 800);
    window.show();
    QApplication::setActiveWindow(&window);
    QVERIFY(QTest::qWaitForWindowActive(&window));
}

} // namespace

class TestPaneSelection : public QObject {
    Q_OBJECT
private slots:
    void theStripShowsTheClickedPane_data() {
        QTest::addColumn<int>("pane");
        QTest::addColumn<QString>("where"); // object name of the pane's child clicked
        QTest::newRow("first, on its picture") << 0 << "scheduleView";
        QTest::newRow("second, on its narration") << 1 << "narration";
        QTest::newRow("first, on its title") << 0 << "title";
        QTest::newRow("third, on its picture") << 2 << "scheduleView";
    }

    void theStripShowsTheClickedPane() {
        QFETCH(int, pane);
        QFETCH(QString, where);
        MainWindow window(remat::testing::freshWindow());
        showActive(window);
        showOpLevelPanes(window);
        if (QTest::currentTestFailed())
            return;
        checkStripShows(window, 2); // the right-most by default, as before there was a choice
        if (QTest::currentTestFailed())
            return;
        window.session().setCurrentPane(pane == 2 ? 0 : 2); // from another pane
        QWidget *target = window.pane(pane)->findChild<QWidget *>(where);
        QVERIFY2(target, qPrintable(where));
        // The picture's top left corner is empty space: a click there toggles no checkpoint.
        QTest::mouseClick(target, Qt::LeftButton, {}, QPoint(2, 2));
        checkStripShows(window, pane);
        // The opened block follows the pane too: its ops are that pane's.
        window.session().setOpenedBlock(0);
        checkStripShows(window, pane);
    }

    void keysSelectPanesWhateverHasFocus_data() {
        QTest::addColumn<QString>("focus"); // object name of the widget to focus; "" where the app puts it
        QTest::newRow("as launched") << QString();
        QTest::newRow("speed box") << QStringLiteral("speed");
        QTest::newRow("layers box") << QStringLiteral("layers");
        QTest::newRow("strategy list") << QStringLiteral("strategy");
        QTest::newRow("blocks strip") << QStringLiteral("opBlockView");
    }

    void keysSelectPanesWhateverHasFocus() {
        QFETCH(QString, focus);
        MainWindow window(remat::testing::freshWindow());
        showActive(window);
        showOpLevelPanes(window);
        if (QTest::currentTestFailed())
            return;
        if (!focus.isEmpty()) {
            QWidget *w = window.findChild<QWidget *>(focus);
            QVERIFY(w);
            w->setFocusPolicy(std::max(w->focusPolicy(), Qt::ClickFocus));
            w->setFocus(Qt::OtherFocusReason);
            QTRY_COMPARE(QApplication::focusWidget(), w);
        }
        QWidget *focused = QApplication::focusWidget();
        QVERIFY2(focused, "the window gives no widget focus");
        QCOMPARE(window.session().currentPane(), 2); // focus handed out at start selects nothing
        QTest::keyClick(focused, Qt::Key_Tab, Qt::ControlModifier);
        checkStripShows(window, 0); // round the end
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab, Qt::ControlModifier);
        checkStripShows(window, 1);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Backtab, Qt::ControlModifier | Qt::ShiftModifier);
        checkStripShows(window, 0);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab, Qt::ControlModifier | Qt::ShiftModifier);
        checkStripShows(window, 2);
    }

    void theSelectionIsRestored() {
        {
            MainWindow window(remat::testing::freshWindow());
            showActive(window);
            showOpLevelPanes(window);
            if (QTest::currentTestFailed())
                return;
            window.session().setCurrentPane(1);
            QVERIFY(window.close());
        }
        MainWindow restored({});
        showActive(restored);
        QTRY_VERIFY_WITH_TIMEOUT(!restored.session().isSimulating() && restored.session().run(1), 20000);
        checkStripShows(restored, 1);
        restored.session().useChain(); // back to a chain for whoever starts next
        QVERIFY(restored.close());
    }

    // One pane needs no frame; two or more frame the current one only.
    void oneFrameAtMost() {
        MainWindow window(remat::testing::freshWindow());
        showActive(window);
        studio::Session &session = window.session();
        QCOMPARE(session.currentPane(), 2);
        QVERIFY(window.pane(2)->isCurrent());
        session.removePane(2); // the current one: its neighbour on the left takes over
        QCOMPARE(session.currentPane(), 1);
        QVERIFY(window.pane(1)->isCurrent() && !window.pane(0)->isCurrent());
        session.removePane(0);
        QCOMPARE(session.currentPane(), 0);
        QVERIFY(!window.pane(0)->isCurrent());
        QVERIFY(!window.findChild<QAction *>("nextPane")->isEnabled());
    }

    void theHeuristicControlReplansTheRuntimePane_data() {
        QTest::addColumn<QString>("heuristic");
        QTest::addColumn<QString>("formula");
        QTest::newRow("cost per byte") << "cost-per-byte" << QString::fromUtf8("h = c/m");
        QTest::newRow("DTR") << "dtr" << QString::fromUtf8("h_DTR = c/(m·s)");
    }

    void theHeuristicControlReplansTheRuntimePane() {
        QFETCH(QString, heuristic);
        QFETCH(QString, formula);
        const std::vector<studio::Scenario> scenarios = studio::builtinScenarios();
        const studio::Scenario *runtime = studio::findScenario(scenarios, QStringLiteral("runtime"));
        QVERIFY(runtime); // dtr (h_DTR), dtr (cost per byte), budget; 12 nodes, n = 32
        const StrategyRegistry &registry = StrategyRegistry::builtin();
        {
            MainWindow window(remat::testing::freshWindow());
            showActive(window);
            studio::Session &session = window.session();
            session.loadScenario(*runtime);
            QTRY_VERIFY_WITH_TIMEOUT(!session.isSimulating() && session.run(2), 20000);
            // Only dtr panes have the control.
            auto *control = window.pane(0)->findChild<QComboBox *>("heuristic");
            QVERIFY(control && control->isVisible());
            QVERIFY(!window.pane(2)->findChild<QComboBox *>("heuristic")->isVisible());
            // It shows the pane's heuristic: the default for the first, cost per byte for the second.
            QCOMPARE(control->currentData().toString(), QStringLiteral("dtr"));
            QCOMPARE(window.pane(1)->findChild<QComboBox *>("heuristic")->currentData().toString(),
                     QStringLiteral("cost-per-byte"));
            // The other heuristic first, then the one under test: each change re-plans.
            const QString other = heuristic == "dtr" ? QStringLiteral("cost-per-byte") : QStringLiteral("dtr");
            for (const QString &name : {other, heuristic}) {
                control->setCurrentIndex(control->findData(name));
                QCOMPARE(session.paneConfig(0).params.heuristic.value_or("dtr"), name.toStdString());
            }
            QCOMPARE(control->currentText(), formula);
            StrategyParams params;
            params.budgetNodes = 12;
            params.heuristic = heuristic.toStdString();
            const Schedule direct = registry.get("dtr").makeSchedule(*session.model(), params);
            const Schedule &shown = session.run(0)->timeline->schedule();
            QVERIFY(shown.ops == direct.ops);
            QCOMPARE(shown.description, direct.description);
            QVERIFY(QString::fromStdString(shown.description).contains(formula));
            // The two heuristics decide differently here: the control changes what the pane shows.
            params.heuristic = other.toStdString();
            QVERIFY(registry.get("dtr").makeSchedule(*session.model(), params).ops != direct.ops);
            QVERIFY(window.close());
        }
        MainWindow restored({});
        QTRY_VERIFY_WITH_TIMEOUT(!restored.session().isSimulating() && restored.session().run(2), 20000);
        QCOMPARE(restored.session().paneConfig(0).params.heuristic.value_or(""), heuristic.toStdString());
        QCOMPARE(restored.pane(0)->findChild<QComboBox *>("heuristic")->currentData().toString(), heuristic);
        QVERIFY(QString::fromStdString(restored.session().run(0)->timeline->schedule().description).contains(formula));
        restored.session().loadScenario(scenarios.front()); // the default for whoever starts next
        QVERIFY(restored.close());
    }
};

int main(int argc, char **argv) {
    TestPaneSelection test;
    return remat::testing::runStudioTest(test, "remat-studio-pane-selection-test", argc, argv);
}

#include "test_pane_selection.moc"
