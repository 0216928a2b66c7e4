// File > Import PyTorch model, offscreen: the trace runs in a QProcess while
// the window stays responsive, with progress and Cancel; a missing Python or
// PyTorch is said in the dialog; a traced file opens in the window. The runs
// that need PyTorch skip where no Python here imports torch.
#include "app/studio/import_dialog.h"
#include "app/studio/main_window.h"
#include "tests/studio/studio_test_main.h"

#include <QAction>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using remat::studio::ImportDialog;
using remat::studio::MainWindow;

namespace {

const QString kModels = qEnvironmentVariable("REMAT_SOURCE_DIR") + "/tests/python/models.py";
const QString kTinyModel = kModels + ":linear_tanh";

// The dialog's own search for a Python with PyTorch, finished.
QString pythonWithTorch(ImportDialog &dialog) {
    if (dialog.isProbing()) {
        QSignalSpy probed(&dialog, &ImportDialog::probed);
        probed.wait(60000);
    }
    return dialog.torchVersion().isEmpty() ? QString() : dialog.python();
}

} // namespace

class ImportDialogTest : public QObject {
    Q_OBJECT
private slots:
    void missingPythonIsSaidInTheDialog() {
        QTemporaryDir dir;
        ImportDialog dialog;
        dialog.setPython(dir.filePath("no-such-python3"));
        dialog.setOutputPath(dir.filePath("m.json"));
        QSignalSpy finished(&dialog, &ImportDialog::finishedRun);
        QVERIFY(dialog.start());
        QVERIFY(finished.count() == 1 || finished.wait(10000));
        QCOMPARE(finished.first().first().toBool(), false);
        QVERIFY2(dialog.statusText().contains("Cannot run") && dialog.statusText().contains("no-such-python3"),
                 qPrintable(dialog.statusText()));
        QVERIFY(!dialog.isRunning());
        QVERIFY(!QFile::exists(dir.filePath("m.json")));
    }

    // A Python whose `import torch` fails: trace's own one-line message.
    void missingTorchIsSaidInTheDialog() {
        QTemporaryDir dir;
        QFile blocker(dir.filePath("torch.py"));
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.write("raise ImportError('No module named torch')\n");
        blocker.close();
        const QByteArray saved = qgetenv("PYTHONPATH");
        qputenv("PYTHONPATH", dir.path().toLocal8Bit());
        ImportDialog dialog;
        const QString python = dialog.python();
        dialog.setPython(python);
        dialog.setOutputPath(dir.filePath("m.json"));
        QSignalSpy finished(&dialog, &ImportDialog::finishedRun);
        QVERIFY(dialog.start());
        const bool done = finished.wait(60000);
        qputenv("PYTHONPATH", saved);
        QVERIFY(done);
        if (dialog.statusText().contains("Cannot run"))
            QSKIP("no python3 on this machine");
        QVERIFY2(dialog.statusText().startsWith("PyTorch is not installed") &&
                     dialog.statusText().contains("python3-torch"),
                 qPrintable(dialog.statusText()));
        QVERIFY(!QFile::exists(dir.filePath("m.json")));
    }

    void badShapeIsSaidInTheDialog() {
        QTemporaryDir dir;
        ImportDialog dialog;
        if (pythonWithTorch(dialog).isEmpty())
            QSKIP("no Python with PyTorch here");
        dialog.setSpec(kTinyModel);
        dialog.setShape("8xfoo");
        dialog.setOutputPath(dir.filePath("m.json"));
        QSignalSpy finished(&dialog, &ImportDialog::finishedRun);
        QVERIFY(dialog.start());
        QVERIFY(finished.wait(60000));
        QVERIFY2(dialog.statusText().contains("--input '8xfoo': expected a shape"), qPrintable(dialog.statusText()));
    }

    // A language model fed a dict from an inputs function (input_ids,
    // attention_mask, labels): traced from its own loss.
    void anInputsFunctionFeedsTheModel() {
        QTemporaryDir dir;
        ImportDialog dialog;
        if (pythonWithTorch(dialog).isEmpty())
            QSKIP("no Python with PyTorch here");
        dialog.setSpec(kModels + ":token_blocks");
        dialog.setShape("8xfoo"); // not used: the function gives the inputs
        dialog.setInputs(kModels + ":token_inputs");
        const QString path = dir.filePath("tokens.json");
        dialog.setOutputPath(path);
        QSignalSpy finished(&dialog, &ImportDialog::finishedRun);
        QVERIFY(dialog.start());
        QVERIFY(finished.wait(120000));
        QVERIFY2(finished.first().first().toBool(), qPrintable(dialog.statusText()));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray text = file.readAll();
        QVERIFY(text.contains("\"differentiated_from\": \"loss\""));
        QVERIFY(text.contains("tests/python/models.py:token_inputs"));
    }

    void aFailingInputsFunctionIsSaidInTheDialog() {
        QTemporaryDir dir;
        ImportDialog dialog;
        if (pythonWithTorch(dialog).isEmpty())
            QSKIP("no Python with PyTorch here");
        dialog.setSpec(kModels + ":token_blocks");
        dialog.setInputs(kModels + ":inputs_that_raise");
        dialog.setOutputPath(dir.filePath("m.json"));
        QSignalSpy finished(&dialog, &ImportDialog::finishedRun);
        QVERIFY(dialog.start());
        QVERIFY(finished.wait(60000));
        QVERIFY2(dialog.statusText().contains("inputs_that_raise() raised KeyError"), qPrintable(dialog.statusText()));
        QVERIFY(!QFile::exists(dir.filePath("m.json")));
    }

    // Through the menu: the window stays responsive while the process runs,
    // progress moves, and the traced file is opened in the window.
    void importOpensTheTracedFile() {
        QTemporaryDir dir;
        MainWindow window(remat::testing::freshWindow());
        auto *action = window.findChild<QAction *>("importPyTorchAction");
        QVERIFY(action);
        action->trigger();
        auto *dialog = window.findChild<ImportDialog *>();
        QVERIFY(dialog);
        if (pythonWithTorch(*dialog).isEmpty())
            QSKIP("no Python with PyTorch here");
        dialog->setSpec(kTinyModel);
        dialog->setShape("8x16");
        const QString path = dir.filePath("tiny.json");
        dialog->setOutputPath(path);
        QSignalSpy imported(dialog, &ImportDialog::imported);
        QVERIFY(dialog->start());
        QVERIFY(dialog->isRunning()); // start() returned at once: the GUI thread is not waiting
        QTRY_VERIFY_WITH_TIMEOUT(dialog->progressValue() >= 1 || imported.count() == 1, 60000);
        QTRY_COMPARE_WITH_TIMEOUT(imported.count(), 1, 60000);
        QCOMPARE(imported.first().first().toString(), path);
        QCOMPARE(window.modelFile(), path);
        QVERIFY(window.modelName().contains("linear_tanh"));
    }

    void cancelStopsTheTraceAndWritesNothing() {
        QTemporaryDir dir;
        ImportDialog dialog;
        if (pythonWithTorch(dialog).isEmpty())
            QSKIP("no Python with PyTorch here");
        dialog.setSpec("torchvision:resnet18");
        dialog.setShape("16x3x224x224"); // seconds per step: time to cancel in
        dialog.setOutputPath(dir.filePath("m.json"));
        QSignalSpy finished(&dialog, &ImportDialog::finishedRun);
        QVERIFY(dialog.start());
        QTRY_VERIFY_WITH_TIMEOUT(dialog.statusText().startsWith("Step"), 60000);
        dialog.reject(); // Cancel
        QVERIFY(finished.count() == 1 || finished.wait(10000));
        QCOMPARE(finished.first().first().toBool(), false);
        QVERIFY(!dialog.isRunning());
        QVERIFY2(dialog.statusText().startsWith("Cancelled"), qPrintable(dialog.statusText()));
        QVERIFY(!QFile::exists(dir.filePath("m.json")));
        QVERIFY(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).isEmpty());
    }
};

int main(int argc, char **argv) {
    ImportDialogTest test;
    return remat::testing::runStudioTest(test, "test_import_dialog", argc, argv);
}

#include "test_import_dialog.moc"
