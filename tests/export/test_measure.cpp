// Measure in the studio: the panes' strategies run on the CPU execution core
// report measured peaks equal to the simulator's prediction and gradients
// equal to store-all's; a pane that cannot run keeps its error; oversized
// networks are refused before allocating; Cancel stops inside a strategy.
// In the window the results fill the summary table's measured columns and the
// chart's measured overlay; a backend that miscounts shows as an error.
#include "app/studio/main_window.h"
#include "app/studio/measure_dialog.h"
#include "app/studio/measure_overlay.h"
#include "app/studio/memory_chart_view.h"
#include "app/studio/summary_table.h"
#include "tests/studio/studio_test_main.h"

#include "core/errors.h"
#include "core/executor/cpu_backend.h"
#include "core/executor/thread_pool.h"
#include "core/executor/transformer.h"
#include "core/model_io.h"
#include "core/strategy_registry.h"

#include <algorithm>

#include <QAction>
#include <QLabel>
#include <QMenuBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QTest>

using namespace remat;
using namespace remat::studio;

namespace {

PaneConfig config(const std::string &strategy, std::optional<int> every = std::nullopt) {
    PaneConfig c;
    c.strategy = strategy;
    c.params.every = every;
    return c;
}

std::vector<PaneConfig> seed() {
    return {config("store-all"), config("recompute-all"), config("periodic", 4)};
}

MeasureSettings settingsFor(const std::string &backend, int width, int batch) {
    MeasureSettings s;
    s.backend = backend;
    s.width = width;
    s.batch = batch;
    s.repeats = 1;
    return s;
}

// The CPU backend, but it reports `extra` bytes more than it holds: what a
// backend that miscounts (or leaks) looks like to the studio.
class MiscountingBackend final : public exec::Backend {
public:
    MiscountingBackend(std::shared_ptr<const exec::NetworkParameters> p, std::int64_t extra)
        : inner_(std::move(p)), extra_(extra) {}
    std::string name() const override { return "miscounting cpu"; }
    std::string deviceName() const override { return inner_.deviceName(); }
    Model model() const override { return inner_.model(); }
    std::int64_t parameterBytes() const override { return inner_.parameterBytes(); }
    void allocate(NodeId n) override { inner_.allocate(n); }
    void release(NodeId n) override { inner_.release(n); }
    void releaseAll() override { inner_.releaseAll(); }
    void loadInput() override { inner_.loadInput(); }
    void forward(int i) override { inner_.forward(i); }
    void backward(int i) override { inner_.backward(i); }
    void synchronize() override {}
    exec::MemoryCounters counters() const override {
        exec::MemoryCounters c = inner_.counters();
        c.liveBytes += extra_;
        c.peakBytes += extra_;
        return c;
    }
    void resetPeak() override { inner_.resetPeak(); }
    void startTimer() override { inner_.startTimer(); }
    double stopTimerSeconds() override { return inner_.stopTimerSeconds(); }
    void deviceWatchBegin() override { inner_.deviceWatchBegin(); }
    std::optional<std::int64_t> deviceWatchPeakGrowth() override { return inner_.deviceWatchPeakGrowth(); }
    void readGradients(exec::Gradients &out) override { inner_.readGradients(out); }

private:
    exec::CpuBackend inner_;
    std::int64_t extra_;
};

MainWindow::Options fresh() {
    MainWindow::Options o;
    o.restoreSession = false;
    return o;
}

// The window's Measure action (Tools menu), its dialog measuring the tiny
// network n = 8, width 16, batch 4, with `hook` applied to the settings.
bool measureFromWindow(MainWindow &window, const std::function<void(MeasureSettings &)> &extraHook = {}) {
    QAction *measure = nullptr;
    for (QAction *a : window.findChildren<QAction *>())
        if (a->shortcut() == QKeySequence(QStringLiteral("Ctrl+M")))
            measure = a;
    if (!measure)
        return false;
    measure->trigger();
    auto *dialog = window.findChild<MeasureDialog *>();
    if (!dialog)
        return false;
    dialog->setSettingsHook([extraHook](MeasureSettings &s) {
        s.width = 16;
        s.batch = 4;
        s.repeats = 1;
        if (extraHook)
            extraHook(s);
    });
    QSignalSpy done(dialog, &MeasureDialog::measured);
    return dialog->start() && done.wait(60000) && done.first().first().toBool();
}

} // namespace

class TestMeasure : public QObject {
    Q_OBJECT
private slots:
    void measuredPeaksEqualPredicted_data();
    void measuredPeaksEqualPredicted();
    void badPaneKeepsItsError();
    void offloadPaneIsMeasured();
    void oversizedNetworkIsRefused();
    void cancelStopsInsideAStrategy();
    void cudaWithoutADeviceSaysWhy();
    void windowShowsMeasuredBesidePredicted();
    void mismatchIsAnError();
    void overlayOnlyForTheSameOps();
    void transformerModelIsMeasuredItself();
    void shippedTransformerIsRecognised();
    void otherModelFilesAreNeverTicked();
    void threadsFromTheDialogReachTheBackend();
};

void TestMeasure::measuredPeaksEqualPredicted_data() {
    QTest::addColumn<int>("layers");
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("batch");
    QTest::newRow("n=16 32x8") << 16 << 32 << 8;
    QTest::newRow("n=9 17x3") << 9 << 17 << 3;
}

void TestMeasure::measuredPeaksEqualPredicted() {
    QFETCH(int, layers);
    QFETCH(int, width);
    QFETCH(int, batch);
    // Progress moves inside the strategies' steps (not once per pane), never back, and ends at 1.
    std::vector<double> progress;
    const MeasureReport report = measurePanes(seed(), layers, settingsFor("cpu", width, batch),
                                              [&](double fraction) { progress.push_back(fraction); });
    QVERIFY2(progress.size() > 3, qPrintable(QString::number(progress.size())));
    QVERIFY(std::is_sorted(progress.begin(), progress.end()));
    QVERIFY(progress.front() > 0);
    QCOMPARE(progress.back(), 1.0);
    QCOMPARE(report.backend, std::string("cpu"));
    QCOMPARE(report.panes.size(), std::size_t{3});
    const std::int64_t node = std::int64_t{width} * batch * 4;
    for (const MeasuredPane &p : report.panes) {
        QVERIFY2(p.ok(), p.error.c_str());
        QVERIFY2(p.peakMatches(), qPrintable(QStringLiteral("%1: measured %2 predicted %3")
                                                 .arg(QString::fromStdString(p.strategy))
                                                 .arg(p.measuredPeakBytes)
                                                 .arg(p.predicted.peakBytes)));
        QVERIFY(p.gradientsBitwiseEqual);
        QVERIFY(p.secondsPerStep > 0);
        QVERIFY(p.predicted.peakBytes >= 3 * node); // at least a_0, one node and its gradient
    }
    // Recompute-all holds less than store-all on the real network too.
    QVERIFY(report.panes[1].measuredPeakBytes < report.panes[0].measuredPeakBytes);
}

void TestMeasure::badPaneKeepsItsError() {
    const MeasureReport report =
        measurePanes({config("periodic", 99), config("store-all")}, 8, settingsFor("cpu", 16, 4));
    QVERIFY(!report.panes[0].ok());
    QVERIFY2(QString::fromStdString(report.panes[0].error).contains("99"), report.panes[0].error.c_str());
    QVERIFY(report.panes[1].ok());
    QVERIFY(report.panes[1].peakMatches());
}

// A pane that offloads (its config carries the link) runs with real copies:
// device and host peaks as predicted, store-all's gradients.
void TestMeasure::offloadPaneIsMeasured() {
    PaneConfig offload = config("offload-all");
    offload.params.machine = Machine{};
    offload.params.machine->link.bytesPerSecond = 1e9;
    const MeasureReport report = measurePanes({config("store-all"), offload}, 10, settingsFor("cpu", 16, 4));
    const MeasuredPane &p = report.panes[1];
    QVERIFY2(p.ok(), p.error.c_str());
    QVERIFY(p.predicted.offloads > 0);
    QVERIFY(p.measuredHostPeakBytes > 0);
    QCOMPARE(p.measuredHostPeakBytes, p.predicted.peakHostBytes);
    QVERIFY(p.peakMatches());
    QVERIFY(p.gradientsBitwiseEqual);
    QVERIFY(p.measuredPeakBytes < report.panes[0].measuredPeakBytes);

    // As the window hands it over: the link times the window's model, not
    // this network, so the config has none; the pane still runs (an instant
    // link: memory does not depend on it).
    const MeasureReport plain =
        measurePanes({config("store-all"), config("offload-all")}, 10, settingsFor("cpu", 16, 4));
    const MeasuredPane &q = plain.panes[1];
    QVERIFY2(q.ok(), q.error.c_str());
    QCOMPARE(q.measuredHostPeakBytes, q.predicted.peakHostBytes);
    QCOMPARE(q.measuredHostPeakBytes, p.measuredHostPeakBytes);
    QVERIFY(q.peakMatches());
    QVERIFY(q.gradientsBitwiseEqual);

    // A backend without a host arena refuses the first copy with a typed
    // error the pane keeps; the other panes still run.
    MeasureSettings noArena = settingsFor("cpu", 16, 4);
    noArena.backendFactory = [](std::shared_ptr<const exec::NetworkParameters> params) {
        return std::make_unique<MiscountingBackend>(std::move(params), 0);
    };
    const MeasureReport refused = measurePanes({config("store-all"), offload}, 10, noArena);
    QVERIFY(refused.panes[0].peakMatches());
    QVERIFY2(QString::fromStdString(refused.panes[1].error).contains("has no host arena"),
             refused.panes[1].error.c_str());
}

void TestMeasure::oversizedNetworkIsRefused() {
    try {
        measurePanes(seed(), 64, settingsFor("cpu", exec::NetworkShape::kMaxWidth, 1 << 16));
        QFAIL("a network of terabytes was accepted");
    } catch (const LimitExceeded &e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains("choose a smaller width or batch"), e.what());
    }
}

void TestMeasure::cancelStopsInsideAStrategy() {
    // Asked once per op: stopping after a few ops of the first strategy's
    // steps, before any strategy finished, proves the executor was stopped.
    double done = 0;
    int checks = 0;
    QVERIFY_THROWS_EXCEPTION(Cancelled, measurePanes(
                                            seed(), 16, settingsFor("cpu", 16, 4), [&](double f) { done = f; },
                                            [&] { return ++checks > 40; }));
    QVERIFY2(done > 0 && done < 0.5, qPrintable(QString::number(done))); // moved, far from done
    QCOMPARE(checks, 41);
}

void TestMeasure::cudaWithoutADeviceSaysWhy() {
    const std::optional<QString> why = cudaUnavailable();
    if (!why)
        QSKIP("a CUDA device is available here");
    QVERIFY2(why->startsWith("CUDA not available: "), qPrintable(*why));
    MeasureSettings settings = settingsFor("cuda", 16, 4);
    try {
        measurePanes(seed(), 8, settings);
        QFAIL("measured on CUDA without a device");
    } catch (const DeviceUnavailable &e) {
        QCOMPARE(QString::fromUtf8(e.what()), *why);
    }
    // The dialog offers CUDA disabled, with the reason beside it.
    MeasureDialog dialog(seed(), 8);
    auto *note = dialog.findChild<QLabel *>(QStringLiteral("backendNote"));
    QVERIFY(note);
    QCOMPARE(note->text(), *why);
}

void TestMeasure::windowShowsMeasuredBesidePredicted() {
    MainWindow window(fresh());
    window.session().setLayers(8);
    QTRY_VERIFY(!window.session().isSimulating() && window.session().run(0) &&
                window.session().run(window.session().paneCount() - 1));
    SummaryTable *t = window.summaryTable();
    QVERIFY(t->isColumnHidden(SummaryTable::MeasuredPeak)); // nothing measured yet
    QVERIFY(measureFromWindow(window));
    // Done: the dialog's button closes it, it no longer offers to cancel.
    auto *dialog = window.findChild<MeasureDialog *>();
    QVERIFY(dialog);
    QCOMPARE(dialog->findChild<QPushButton *>("close")->text(), QStringLiteral("Close"));
    QVERIFY(!t->isColumnHidden(SummaryTable::MeasuredPeak));
    QCOMPARE(t->rowCount(), window.session().paneCount());
    for (int r = 0; r < t->rowCount(); ++r) {
        const QString predicted = t->item(r, SummaryTable::NetworkPredicted)->text();
        QVERIFY2(predicted != QStringLiteral("\u2013"), qPrintable(predicted));
        QCOMPARE(t->item(r, SummaryTable::MeasuredPeak)->text(), predicted);
        QCOMPARE(t->item(r, SummaryTable::GradientCheck)->text(), QStringLiteral("\u2713"));
        QVERIFY(t->item(r, SummaryTable::SecondsPerStep)->text().toDouble() > 0);
        // The chart's measured curve, in the pane's bytes, is the pane's predicted curve op for op.
        const Timeline &tl = *window.session().run(r)->timeline;
        const auto &measured = window.chart()->chart().measured();
        QVERIFY(static_cast<std::size_t>(r) < measured.size() && measured[static_cast<std::size_t>(r)]);
        for (std::int64_t s = 0; s < tl.steps(); ++s)
            QCOMPARE((*measured[static_cast<std::size_t>(r)])[static_cast<std::size_t>(s)], double(tl.bytesAt(s)));
    }
    QCOMPARE(t->errorRows(), 0);
    QVERIFY2(window.statusBar()->currentMessage().contains("every peak as predicted"),
             qPrintable(window.statusBar()->currentMessage()));
    // The overlay toggle hides the measured curves and brings them back.
    window.chart()->setShowMeasured(false);
    QVERIFY(!window.chart()->chart().hasMeasured());
    window.chart()->setShowMeasured(true);
    QVERIFY(window.chart()->chart().hasMeasured());
    // A pane changed after measuring loses its measured cells and curve.
    PaneConfig other = window.session().paneConfig(0);
    other.strategy = "recompute-all";
    window.session().setPaneConfig(0, other);
    QTRY_VERIFY(!window.session().isSimulating());
    QCOMPARE(t->item(0, SummaryTable::MeasuredPeak)->text(), QStringLiteral("\u2013"));
    QVERIFY(!window.chart()->chart().measured().empty());
    QVERIFY(!window.chart()->chart().measured()[0]);
    QVERIFY(window.close());
}

void TestMeasure::mismatchIsAnError() {
    MainWindow window(fresh());
    window.session().setLayers(8);
    QTRY_VERIFY(!window.session().isSimulating() && window.session().run(0));
    QVERIFY(measureFromWindow(window, [](MeasureSettings &s) {
        s.backendFactory = [](std::shared_ptr<const exec::NetworkParameters> p) -> std::unique_ptr<exec::Backend> {
            return std::make_unique<MiscountingBackend>(std::move(p), 64);
        };
    }));
    SummaryTable *t = window.summaryTable();
    QCOMPARE(t->errorRows(), window.session().paneCount());
    for (int r = 0; r < t->rowCount(); ++r) {
        QTableWidgetItem *cell = t->item(r, SummaryTable::MeasuredPeak);
        QVERIFY(cell->text() != t->item(r, SummaryTable::NetworkPredicted)->text());
        QCOMPARE(cell->background().color(), QColor(0xff, 0xd8, 0xd8));
        QVERIFY2(cell->toolTip().contains("differs from the predicted"), qPrintable(cell->toolTip()));
    }
    const QString message = window.statusBar()->currentMessage();
    QVERIFY2(message.contains("ERROR") && message.contains("differs from the predicted"), qPrintable(message));
    // The chart shows it too: the measured curve leaves the predicted one, by 64 bytes of 256 per node.
    const Timeline &tl = *window.session().run(0)->timeline;
    const auto &measured = window.chart()->chart().measured();
    QVERIFY(!measured.empty() && measured[0]);
    for (std::int64_t s = 0; s < tl.steps(); ++s)
        QCOMPARE((*measured[0])[static_cast<std::size_t>(s)], double(tl.bytesAt(s)) + 0.25);
    QVERIFY(window.close());
}

// The overlay is refused, with a reason, where the pane is not the measured schedule op for op.
void TestMeasure::overlayOnlyForTheSameOps() {
    const MeasureReport report = measurePanes({config("store-all")}, 6, settingsFor("cpu", 8, 2));
    auto model = std::make_shared<const Model>(Model::chain(6));
    auto same = std::make_shared<const Schedule>(StrategyRegistry::builtin().get("store-all").makeSchedule(*model, {}));
    auto otherOps =
        std::make_shared<const Schedule>(StrategyRegistry::builtin().get("recompute-all").makeSchedule(*model, {}));
    const Timeline a = Simulator::replay(model, same).timeline;
    const Timeline b = Simulator::replay(model, otherOps).timeline;
    const PaneOverlay good = measuredInPaneBytes(a, report.panes[0], report.shape.nodeBytes());
    QVERIFY2(good.refused.isEmpty(), qPrintable(good.refused));
    QCOMPARE(std::int64_t(good.bytes.size()), a.steps());
    const PaneOverlay bad = measuredInPaneBytes(b, report.panes[0], report.shape.nodeBytes());
    QVERIFY(bad.bytes.empty());
    QVERIFY(!bad.refused.isEmpty());
}

// The opened model is a transformer the executor runs: that very model is
// measured (not a tanh chain), with every peak as predicted and time ratios.
void TestMeasure::transformerModelIsMeasuredItself() {
    exec::TransformerShape shape;
    shape.layers = 3;
    shape.hidden = 16;
    shape.heads = 2;
    shape.seq = 6;
    shape.batch = 2;
    const Model model = exec::transformerModel(shape);
    const MeasureReport report = measurePanes({config("store-all"), config("periodic", 1)}, model.layers(),
                                              settingsFor("cpu", 16, 4), {}, {}, &model);
    QVERIFY(report.ranPaneModel);
    QVERIFY2(report.network.rfind("transformer", 0) == 0, report.network.c_str());
    for (const MeasuredPane &p : report.panes) {
        QVERIFY2(p.peakMatches(), p.strategy.c_str());
        QVERIFY(p.gradientsBitwiseEqual);
        QCOMPARE(p.predicted.peakBytes, Simulator::summarize(model, *p.schedule).peakBytes);
        QVERIFY(p.timeVsStoreAll > 0);
    }
    // Per-layer checkpointing re-runs the layers: more predicted compute than store-all.
    QVERIFY(report.panes[1].predictedCostVsStoreAll > 1.0);
}

void TestMeasure::shippedTransformerIsRecognised() {
    const std::string dir = qEnvironmentVariable("REMAT_SOURCE_DIR").toStdString() + "/resources/models/";
    const auto shape = exec::recognizeTransformer(loadModelFile(dir + "transformer-12x256-cpu.json").model);
    QVERIFY(shape);
    QCOMPARE(shape->layers, 12);
    QCOMPARE(shape->hidden, 256);
    QCOMPARE(shape->heads, 4);
    QCOMPARE(shape->seq, 128);
    QCOMPARE(shape->batch, 4);
    // GPT-2's file describes the real model, which the executor does not run.
    QVERIFY(!exec::recognizeTransformer(loadModelFile(dir + "gpt2-small.json").model));
}

// A model file the executor cannot run: Measure says which network it ran and
// puts nothing beside the model's rows (no tick beside numbers it did not run).
void TestMeasure::otherModelFilesAreNeverTicked() {
    MainWindow window(fresh());
    const std::string file =
        qEnvironmentVariable("REMAT_SOURCE_DIR").toStdString() + "/resources/models/vgg16-batch32.json";
    window.session().setModel(std::make_shared<const Model>(loadModelFile(file).model), QStringLiteral("VGG-16"));
    QTRY_VERIFY(!window.session().isSimulating() && window.session().run(0));
    QVERIFY(measureFromWindow(window));
    SummaryTable *t = window.summaryTable();
    QVERIFY(t->isColumnHidden(SummaryTable::MeasuredPeak));
    QVERIFY(!t->hasMeasurements());
    const QString message = window.statusBar()->currentMessage();
    QVERIFY2(message.contains("not the opened model") && message.contains("tanh MLP"), qPrintable(message));
    auto *dialog = window.findChild<MeasureDialog *>();
    QVERIFY(dialog->statusText().contains("This is not the opened model"));
    QVERIFY(window.close());
}

// The dialog's thread count (every core by default) is what the backend runs
// on, and the figures are as exact on several threads as on one.
void TestMeasure::threadsFromTheDialogReachTheBackend() {
    MeasureDialog dialog(seed(), 6);
    auto *threads = dialog.findChild<QSpinBox *>(QStringLiteral("threads"));
    QVERIFY(threads);
    QCOMPARE(threads->value(), exec::availableCores());
    threads->setValue(3);
    int seen = 0;
    dialog.setSettingsHook([&seen](MeasureSettings &s) {
        seen = s.threads;
        s.width = 24;
        s.batch = 5;
        s.repeats = 1;
    });
    QSignalSpy done(&dialog, &MeasureDialog::measured);
    QVERIFY(dialog.start());
    QVERIFY(done.wait(60000));
    QVERIFY(done.first().first().toBool());
    QCOMPARE(seen, 3);
    QVERIFY2(dialog.statusText().contains("3 threads"), qPrintable(dialog.statusText()));
    QVERIFY2(dialog.statusText().contains("every peak as predicted"), qPrintable(dialog.statusText()));
    // Bad counts never reach a backend.
    MeasureSettings bad = settingsFor("cpu", 8, 2);
    bad.threads = 0;
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, measurePanes(seed(), 4, bad));
}

int main(int argc, char **argv) {
    TestMeasure test; // settings in test mode, away from the user's
    return remat::testing::runStudioTest(test, "test_measure", argc, argv);
}
#include "test_measure.moc"
