// A pane's colour belongs to the pane: the chart curve, the table swatch and
// the pane's own colour stay put while another pane is still simulating or is
// refused, and no pane colour is a node state's ("computed by the current op").
#include "app/render/palette.h"
#include "app/studio/main_window.h"
#include "app/studio/memory_chart_view.h"
#include "app/studio/summary_table.h"
#include "tests/studio/studio_test_main.h"

#include <QtTest>

using namespace remat;
using remat::studio::MainWindow;

namespace {

// The palette index the chart paints `strategy`'s curve with, or -1.
int chartColourOf(const MainWindow &window, const QString &strategy) {
    const render::MemoryChartPainter &chart = window.chart()->chart();
    const render::Palette palette = render::Palette::light();
    for (std::size_t i = 0; i < chart.series().size(); ++i)
        if (chart.series()[i].name.startsWith(strategy))
            for (int pane = 0; pane < 4; ++pane)
                if (chart.colourOf(i, palette) == palette.paneColour(pane))
                    return pane;
    return -1;
}

} // namespace

class TestPaneColours : public QObject {
    Q_OBJECT
private slots:
    void paneColoursDifferFromNodeStates() {
        for (const render::Palette &p : {render::Palette::light(), render::Palette::dark()})
            for (int pane = 0; pane < 4; ++pane) {
                QVERIFY(p.paneColour(pane) != p.current);
                for (int other = 0; other < pane; ++other)
                    QVERIFY(p.paneColour(pane) != p.paneColour(other));
            }
    }

    void aRefusedPaneDoesNotShiftTheOthers_data() {
        QTest::addColumn<bool>("slow"); // true: pane 0 still simulating; false: pane 0 refused
        QTest::newRow("refused") << false;
        QTest::newRow("still simulating") << true;
    }
    void aRefusedPaneDoesNotShiftTheOthers() {
        QFETCH(bool, slow);
        MainWindow window(remat::testing::freshWindow());
        QCOMPARE(window.session().paneCount(), 3);
        QTRY_VERIFY_WITH_TIMEOUT(window.session().run(2) != nullptr, 30000);
        const QString last = QString::fromStdString(window.session().run(2)->timeline->schedule().strategy);
        QCOMPARE(chartColourOf(window, last), 2);
        studio::PaneConfig config;
        if (slow) {
            window.session().setLayers(1500); // recompute-all (pane 1) takes a while
            QVERIFY(window.session().isSimulating());
            QVERIFY(!window.session().run(1));
        } else {
            config.strategy = "checkpoints";
            config.params.checkpoints = std::vector<int>{99};
            window.session().setPaneConfig(0, config);
            QVERIFY(!window.session().run(0));
        }
        QCOMPARE(chartColourOf(window, last), 2);
        const QColor swatch = window.summaryTable()->item(2, 0)->data(Qt::DecorationRole).value<QColor>();
        QVERIFY(swatch == render::Palette::light().paneColour(2) || swatch == render::Palette::dark().paneColour(2));
        if (slow)
            QTRY_VERIFY_WITH_TIMEOUT(window.session().run(1) != nullptr, 60000);
    }
};

int main(int argc, char **argv) {
    TestPaneColours test;
    return remat::testing::runStudioTest(test, "remat-studio-colours-test", argc, argv);
}

#include "test_pane_colours.moc"
