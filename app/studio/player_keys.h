#pragma once
// The player's keys (Space, arrows, Home/End, P) work whatever has focus in
// the window: a spin box, a strategy list or the speed box would otherwise
// take them. Only a text field the user is editing keeps them: from a click
// into it or a typed character until Enter, Escape or focus leaving it.
#include <QList>
#include <QObject>
#include <QPointer>

class QAction;
class QKeyEvent;
class QWidget;

namespace remat::studio {

class PlayerKeys : public QObject {
    Q_OBJECT
public:
    // Watches every widget of `window` (an application event filter) and
    // triggers the one of `actions` whose shortcut is the key pressed.
    PlayerKeys(QWidget *window, QList<QAction *> actions);
    ~PlayerKeys() override;
    // More keys that work whatever has focus (a lesson's clicker keys); a
    // disabled action lets its key through to the next one with that key.
    void addActions(const QList<QAction *> &actions);

    // The text field being edited (keeps the player's keys), or null.
    QWidget *editedField() const { return editing_; }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QAction *actionFor(const QKeyEvent &key) const;

    QWidget *window_;
    QList<QAction *> actions_;
    QPointer<QWidget> editing_;
};

} // namespace remat::studio
