#pragma once
// Panes > Link and budgets… (docs/studio.md, "Offloading"): the link between
// device and host, the device and host budgets and, for a uniform chain, the
// size of an activation and the time of a layer. OK applies them through
// `apply`, which answers "" or the message of the first bad field; the
// dialog then stays open with the message under the fields, never a crash.
#include "app/studio/link_settings.h"

#include <QDialog>

#include <functional>

class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QMenu;

namespace remat::studio {

class Session;

class LinkDialog : public QDialog {
    Q_OBJECT
public:
    using Apply = std::function<QString(const LinkSettings &)>;
    LinkDialog(const LinkSettings &current, bool chain, Apply apply, QWidget *parent = nullptr);

    LinkSettings settings() const; // as typed
    QString message() const;       // the last refusal, "" if none
    // Fills the fields (tests, and "Default link").
    void setSettings(const LinkSettings &settings);

    void accept() override; // applies; closes only when `apply` agrees

private:
    bool chain_;
    Apply apply_;
    LinkSettings kept_;
    QLineEdit *link_, *latency_, *deviceRate_, *deviceBudget_, *hostBudget_;
    QLineEdit *nodeBytes_, *forwardTime_, *backwardTime_;
    QLabel *message_;
};

// Panes > Link and budgets… (Ctrl+Shift+L) in `menu`: the dialog on the
// session's link (the default link to start from when none is set), applied
// through Session::setLink.
void addLinkAction(QMenu *menu, Session &session, QWidget *parent);
void openLinkDialog(Session &session, QWidget *parent);

} // namespace remat::studio
