#include "app/studio/player_keys.h"

#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QKeyEvent>
#include <QLineEdit>

namespace remat::studio {

namespace {

// The text field `w` belongs to: a line edit, or the spin box around one; null otherwise.
QWidget *textFieldOf(QWidget *w) {
    if (auto *spin = qobject_cast<QAbstractSpinBox *>(w))
        return spin;
    if (qobject_cast<QLineEdit *>(w))
        if (auto *spin = qobject_cast<QAbstractSpinBox *>(w->parentWidget()))
            return spin;
    return qobject_cast<QLineEdit *>(w) ? w : nullptr;
}

bool typesText(const QKeyEvent &key) {
    if (key.key() == Qt::Key_Backspace || key.key() == Qt::Key_Delete)
        return true;
    const QString text = key.text();
    return !text.isEmpty() && text.at(0).isPrint() && !(key.modifiers() & (Qt::ControlModifier | Qt::AltModifier));
}

} // namespace

PlayerKeys::PlayerKeys(QWidget *window, QList<QAction *> actions)
    : QObject(window), window_(window), actions_(std::move(actions)) {
    qApp->installEventFilter(this);
}

void PlayerKeys::addActions(const QList<QAction *> &actions) {
    actions_ << actions;
}

PlayerKeys::~PlayerKeys() {
    qApp->removeEventFilter(this);
}

QAction *PlayerKeys::actionFor(const QKeyEvent &key) const {
    const QKeySequence pressed(QKeyCombination(key.modifiers() & ~Qt::KeypadModifier, Qt::Key(key.key())));
    for (QAction *a : actions_)
        if (a->isEnabled() && a->shortcuts().contains(pressed))
            return a;
    return nullptr;
}

bool PlayerKeys::eventFilter(QObject *watched, QEvent *event) {
    const QEvent::Type type = event->type();
    if ((type != QEvent::KeyPress && type != QEvent::MouseButtonPress && type != QEvent::FocusOut) ||
        !watched->isWidgetType())
        return false;
    auto *widget = static_cast<QWidget *>(watched);
    if (widget->window() != window_)
        return false; // dialogs and popups keep their keys
    QWidget *field = textFieldOf(widget);
    switch (type) {
    case QEvent::MouseButtonPress:
        // A click into the text (not on a spin box's arrows) starts editing.
        if (qobject_cast<QLineEdit *>(widget))
            editing_ = field;
        return false;
    case QEvent::FocusOut:
        if (field && field == editing_)
            editing_ = nullptr;
        return false;
    default:
        break;
    }
    const auto &key = static_cast<const QKeyEvent &>(*event);
    if (field && field == editing_) {
        if (key.key() == Qt::Key_Return || key.key() == Qt::Key_Enter || key.key() == Qt::Key_Escape)
            editing_ = nullptr; // the field commits (or reverts) and hands the keys back
        return false;
    }
    // Widgets without a use for the key let its shortcut fire before a key
    // press is sent; one that claims it (a text field, a spin box) gets here.
    if (QAction *action = actionFor(key)) {
        action->trigger();
        return true;
    }
    if (field && typesText(key))
        editing_ = field;
    return false;
}

} // namespace remat::studio
