#pragma once
// The files remat ships beside its programs (example models, lessons): found
// in share/remat/<folder> beside the installed program, else in the source
// tree's resources/<folder> (a build tree), and listed in menus by title.
#include <QString>

#include <functional>
#include <string>

class QMenu;

namespace remat::studio {

// "" when neither exists.
QString resourceDirectory(const QString &folder);

// One entry per *.json file of `directory` in `menu`, by name, titled
// `titleOf(path)` (the file's name when that throws: opening it says what is
// wrong), calling `open(path)`; a disabled `emptyText` entry when there is none.
void addFileEntries(QMenu *menu, const QString &directory, const std::function<std::string(const QString &)> &titleOf,
                    const std::function<void(const QString &)> &open, const QString &emptyText);

} // namespace remat::studio
