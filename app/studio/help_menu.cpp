// Help > About (the versions this build runs with) and Help > Keyboard
// shortcuts (read from the window's actions, so the list never goes stale).
#include "app/studio/help_menu.h"
#include "app/studio/main_window.h"

#include <Eigen/Core>

#include <QAction>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>

#ifdef REMAT_HAVE_CUDA
#include "gpu/cuda_backend.h"
#endif

namespace remat::studio {

namespace {

QString cudaLine() {
#ifdef REMAT_HAVE_CUDA
    try {
        const gpu::DeviceInfo device = gpu::queryDevice();
        return QObject::tr("CUDA runtime %1.%2, driver %3.%4, %5")
            .arg(device.runtimeVersion / 1000)
            .arg(device.runtimeVersion % 1000 / 10)
            .arg(device.driverVersion / 1000)
            .arg(device.driverVersion % 1000 / 10)
            .arg(QString::fromStdString(device.name));
    } catch (const std::exception &e) {
        return QObject::tr("CUDA built in; %1").arg(QString::fromUtf8(e.what()));
    }
#else
    return QObject::tr("CUDA not built in (Measure runs on the CPU)");
#endif
}

// Every action with a shortcut, in menu order; submenus included.
void collectShortcuts(const QMenu *menu, const QString &path, QStringList &rows) {
    for (QAction *a : menu->actions()) {
        if (a->menu()) {
            collectShortcuts(a->menu(), path + QStringLiteral(" > ") + a->text().remove(QLatin1Char('&')), rows);
            continue;
        }
        if (a->shortcut().isEmpty())
            continue;
        rows << QStringLiteral("<tr><td><b>%1</b></td><td>%2 &gt; %3</td></tr>")
                    .arg(a->shortcut().toString(QKeySequence::NativeText).toHtmlEscaped(), path.toHtmlEscaped(),
                         a->text().remove(QLatin1Char('&')).toHtmlEscaped());
    }
}

} // namespace

QString aboutText() {
    return QObject::tr("<h3>Remat Studio %1</h3>"
                       "<p>Gradient checkpointing, animated: which activations a training step holds in memory "
                       "under each schedule, compared side by side and measured on a real network.</p>"
                       "<p>remat %1<br>Qt %2 (built with %3)<br>Eigen %4.%5.%6<br>%7</p>")
        .arg(QStringLiteral(REMAT_VERSION), QString::fromLatin1(qVersion()), QStringLiteral(QT_VERSION_STR))
        .arg(EIGEN_WORLD_VERSION)
        .arg(EIGEN_MAJOR_VERSION)
        .arg(EIGEN_MINOR_VERSION)
        .arg(cudaLine().toHtmlEscaped());
}

QString shortcutsText(const QMenuBar &bar) {
    QStringList rows;
    for (QAction *top : bar.actions())
        if (top->menu())
            collectShortcuts(top->menu(), top->text().remove(QLatin1Char('&')), rows);
    return QStringLiteral(
               "<table cellspacing=4>%1</table>"
               "<p>Click a forward node to toggle it as a checkpoint; hover a node to see why it is in memory.</p>")
        .arg(rows.join(QString()));
}

void MainWindow::buildHelpMenu() {
    QMenu *help = menuBar()->addMenu(tr("&Help"));
    QAction *keys = help->addAction(tr("&Keyboard shortcuts"), this, [this] {
        auto *box = new QMessageBox(QMessageBox::NoIcon, tr("Keyboard shortcuts"), shortcutsText(*menuBar()),
                                    QMessageBox::Ok, this);
        box->setObjectName("shortcutsBox");
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->setTextFormat(Qt::RichText);
        box->open();
    });
    keys->setShortcut(QKeySequence::HelpContents);
    help->addAction(tr("&About Remat Studio"), this, [this] {
        auto *box = new QMessageBox(QMessageBox::NoIcon, tr("About Remat Studio"), aboutText(), QMessageBox::Ok, this);
        box->setObjectName("aboutBox");
        box->setIconPixmap(windowIcon().pixmap(64, 64));
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->setTextFormat(Qt::RichText);
        box->open();
    });
}

} // namespace remat::studio
