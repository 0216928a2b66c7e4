#include "app/studio/resource_files.h"

#include <QAction>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QMenu>

namespace remat::studio {

QString resourceDirectory(const QString &folder) {
    const QString installed =
        QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("../share/remat/") + folder);
    if (QFileInfo(installed).isDir())
        return QDir::cleanPath(installed);
#ifdef REMAT_SOURCE_DIR
    const QString source = QStringLiteral(REMAT_SOURCE_DIR "/resources/") + folder;
    if (QFileInfo(source).isDir())
        return source;
#endif
    return {};
}

void addFileEntries(QMenu *menu, const QString &directory, const std::function<std::string(const QString &)> &titleOf,
                    const std::function<void(const QString &)> &open, const QString &emptyText) {
    const QDir dir(directory);
    const QStringList files =
        directory.isEmpty() ? QStringList() : dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
    for (const QString &name : files) {
        const QString path = dir.filePath(name);
        QString title = QFileInfo(name).completeBaseName();
        try {
            title = QString::fromStdString(titleOf(path));
        } catch (const std::exception &) {
            // Listed under its file name; opening it says what is wrong.
        }
        menu->addAction(title, menu, [open, path] { open(path); })->setData(path);
    }
    if (files.isEmpty())
        menu->addAction(emptyText)->setEnabled(false);
}

} // namespace remat::studio
