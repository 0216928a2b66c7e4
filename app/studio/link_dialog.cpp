#include "app/studio/link_dialog.h"

#include "app/studio/session.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QVBoxLayout>

namespace remat::studio {

namespace {

QLineEdit *field(QWidget *parent, const char *name, const QString &placeholder, const QString &tip) {
    auto *edit = new QLineEdit(parent);
    edit->setObjectName(QString::fromLatin1(name));
    edit->setPlaceholderText(placeholder);
    edit->setToolTip(tip);
    edit->setClearButtonEnabled(true);
    return edit;
}

QString qs(const std::string &s) {
    return QString::fromStdString(s);
}

std::string text(const QLineEdit *edit) {
    return edit->text().trimmed().toStdString();
}

} // namespace

LinkDialog::LinkDialog(const LinkSettings &current, bool chain, Apply apply, QWidget *parent)
    : QDialog(parent), chain_(chain), apply_(std::move(apply)), kept_(current) {
    setWindowTitle(tr("Link and budgets"));
    setObjectName("linkDialog");
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(tr("With a link every pane runs on two streams: compute, and one copy stream that "
                                "moves activations to host memory and back. A copy hidden behind compute is free; "
                                "one that is not makes the compute stream wait (a stall). Leave the link empty to "
                                "turn offloading off."),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto *form = new QFormLayout;
    link_ = field(this, "link", tr("e.g. 16GB/s (empty: no link)"),
                  tr("Bytes per second between device and host; 0B/s means no offloading"));
    latency_ = field(this, "latency", tr("e.g. 10us (default 0)"), tr("Paid by every copy before its bytes move"));
    deviceRate_ =
        field(this, "deviceRate", tr("e.g. 100TFLOP/s"), tr("For models whose costs are FLOP: turns them into time"));
    deviceBudget_ = field(this, "deviceBudget", tr("e.g. 512MiB"),
                          tr("The device memory offload-budget plans for (least time within it)"));
    hostBudget_ = field(this, "hostBudget", tr("optional, e.g. 64GiB"), tr("Host memory offload-budget may fill"));
    form->addRow(tr("Link bandwidth"), link_);
    form->addRow(tr("Latency"), latency_);
    form->addRow(tr("Device rate"), deviceRate_);
    form->addRow(tr("Device budget"), deviceBudget_);
    form->addRow(tr("Host budget"), hostBudget_);
    nodeBytes_ = field(this, "nodeBytes", tr("e.g. 64MiB"), tr("The size of every activation a_i of the chain"));
    forwardTime_ = field(this, "forwardTime", tr("e.g. 2ms"), tr("One layer's forward on the device"));
    backwardTime_ = field(this, "backwardTime", tr("default: twice the forward"), tr("One layer's backward"));
    if (chain_) {
        form->addRow(tr("Activation size"), nodeBytes_);
        form->addRow(tr("Forward time"), forwardTime_);
        form->addRow(tr("Backward time"), backwardTime_);
    } else {
        for (QLineEdit *e : {nodeBytes_, forwardTime_, backwardTime_})
            e->hide();
    }
    layout->addLayout(form);
    message_ = new QLabel(this);
    message_->setObjectName("linkMessage");
    message_->setWordWrap(true);
    message_->setStyleSheet(QStringLiteral("color: #c02a2a"));
    message_->hide();
    layout->addWidget(message_);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    QPushButton *defaults = buttons->addButton(tr("Default link"), QDialogButtonBox::ResetRole);
    defaults->setObjectName("defaultLink");
    QPushButton *off = buttons->addButton(tr("No link"), QDialogButtonBox::ResetRole);
    off->setObjectName("noLink");
    connect(defaults, &QPushButton::clicked, this, [this] { setSettings(LinkSettings::defaults()); });
    connect(off, &QPushButton::clicked, this, [this] { setSettings({}); });
    connect(buttons, &QDialogButtonBox::accepted, this, &LinkDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &LinkDialog::reject);
    layout->addWidget(buttons);
    setSettings(current);
    setMinimumWidth(460);
}

void LinkDialog::setSettings(const LinkSettings &s) {
    link_->setText(qs(s.machine.link));
    latency_->setText(qs(s.machine.latency));
    deviceRate_->setText(qs(s.machine.deviceRate));
    deviceBudget_->setText(qs(s.machine.deviceBudget));
    hostBudget_->setText(qs(s.machine.hostBudget));
    nodeBytes_->setText(qs(s.nodeBytes));
    forwardTime_->setText(qs(s.forwardTime));
    backwardTime_->setText(qs(s.backwardTime));
}

LinkSettings LinkDialog::settings() const {
    LinkSettings s = kept_; // a model file's dialog keeps the chain's fields for later
    s.machine.link = text(link_);
    s.machine.latency = text(latency_);
    s.machine.deviceRate = text(deviceRate_);
    s.machine.deviceBudget = text(deviceBudget_);
    s.machine.hostBudget = text(hostBudget_);
    if (chain_) {
        s.nodeBytes = text(nodeBytes_);
        s.forwardTime = text(forwardTime_);
        s.backwardTime = text(backwardTime_);
    }
    return s;
}

QString LinkDialog::message() const {
    return message_->isHidden() ? QString() : message_->text();
}

void LinkDialog::accept() {
    const QString refused = apply_ ? apply_(settings()) : QString();
    message_->setText(refused);
    message_->setVisible(!refused.isEmpty());
    if (refused.isEmpty())
        QDialog::accept();
}

void openLinkDialog(Session &session, QWidget *parent) {
    // An empty dialog offers the default link to start from.
    LinkDialog dialog(
        session.link().on() ? session.link() : LinkSettings::defaults(), session.isChain(),
        [&session](const LinkSettings &s) { return session.setLink(s); }, parent);
    dialog.exec();
}

void addLinkAction(QMenu *menu, Session &session, QWidget *parent) {
    QAction *action = menu->addAction(QObject::tr("&Link and budgets…"), parent,
                                      [&session, parent] { openLinkDialog(session, parent); });
    action->setObjectName("linkAndBudgets");
    action->setShortcut(QKeySequence(QObject::tr("Ctrl+Shift+L")));
    action->setToolTip(QObject::tr("The link between device and host memory, and the budgets: every pane then runs "
                                   "on a compute and a copy stream"));
}

} // namespace remat::studio
