// The window's model actions: File > Open model, Import PyTorch model,
// Examples and Uniform chain, and Plan for budget, with the dialogs that say
// why a file or a budget was refused. The session does the work.
#include "app/studio/import_dialog.h"
#include "app/studio/main_window.h"
#include "app/studio/resource_files.h"
#include "core/model_io.h"

#include <QAction>
#include <QFileDialog>
#include <QMenu>
#include <QMessageBox>

namespace remat::studio {

QString MainWindow::examplesDirectory() {
    return resourceDirectory(QStringLiteral("models"));
}

void MainWindow::showMessageBox(const QString &title, const QString &text, bool error) {
    // Window-modal and non-blocking: the window stays in charge, tests can read it.
    auto *box =
        new QMessageBox(error ? QMessageBox::Warning : QMessageBox::Information, title, text, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setTextFormat(Qt::PlainText);
    box->open();
}

bool MainWindow::openModelFile(const QString &path) {
    const QString error = session_->openModelFile(path);
    if (!error.isEmpty()) {
        showMessageBox(tr("Cannot open the model"), error, true);
        return false;
    }
    session_->useStarterPanes();
    return true;
}

bool MainWindow::planForBudget(const QString &text) {
    const QString error = session_->planForBudget(text);
    if (!error.isEmpty())
        showMessageBox(tr("Plan for budget"), error, true);
    return error.isEmpty();
}

void MainWindow::buildModelMenu(QMenu *file) {
    QAction *open = file->addAction(tr("&Open model\u2026"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open a model"), examplesDirectory(),
                                                          tr("Model files (*.json);;All files (*)"));
        if (!path.isEmpty())
            openModelFile(path);
    });
    open->setShortcut(QKeySequence::Open);
    QAction *import = file->addAction(tr("&Import PyTorch model\u2026"), this, [this] {
        auto *dialog = new ImportDialog(this); // traces in a QProcess (docs/pytorch.md)
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &ImportDialog::imported, this, [this](const QString &path) { openModelFile(path); });
        dialog->open();
    });
    import->setObjectName("importPyTorchAction");
    import->setShortcut(QKeySequence(tr("Ctrl+I")));
    QMenu *examples = file->addMenu(tr("&Examples"));
    examples->setObjectName("examplesMenu");
    addFileEntries(
        examples, examplesDirectory(),
        [](const QString &path) { return loadModelFile(path.toStdString()).name; }, // the file's own name
        [this](const QString &path) { openModelFile(path); }, tr("(no example models found)"));
    file->addAction(tr("&Uniform chain of n layers"), session_, &Session::useChain);
}

} // namespace remat::studio
