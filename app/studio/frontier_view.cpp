#include "app/studio/frontier_view.h"

#include "app/render/frontier_painter.h"
#include "app/render/measured_points_painter.h"
#include "app/render/palette.h"
#include "app/studio/session.h"
#include "core/errors.h"
#include "core/op_frontier.h"
#include "core/units.h"

#include <QApplication>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QImage>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QScreen>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace remat::studio {

namespace {

render::Palette currentPalette() {
    return render::Palette::forDarkMode(QApplication::palette().color(QPalette::Window).lightness() < 128);
}

QString qs(const std::string &s) {
    return QString::fromStdString(s);
}

} // namespace

FrontierChart::FrontierChart(QWidget *parent) : QWidget(parent) {
    setMinimumSize(480, 320);
}

void FrontierChart::setFrontier(Frontier frontier, bool sizesInNodes, std::string costUnit) {
    frontier_ = std::move(frontier);
    sizesInNodes_ = sizesInNodes;
    costUnit_ = std::move(costUnit);
    update();
}

void FrontierChart::paintEvent(QPaintEvent *) {
    QPainter painter(this);
    paint(painter, rect());
}

void FrontierChart::paint(QPainter &painter, const QRectF &rect) const {
    render::paintFrontier(painter, rect, frontier_ ? &*frontier_ : nullptr, sizesInNodes_, costUnit_, currentPalette());
}

MeasuredPointsChart::MeasuredPointsChart(QWidget *parent) : QWidget(parent) {
    setMinimumSize(420, 320);
}

void MeasuredPointsChart::setPoints(std::shared_ptr<const RaceResult> points) {
    points_ = std::move(points);
    update();
}

void MeasuredPointsChart::paintEvent(QPaintEvent *) {
    QPainter painter(this);
    paint(painter, rect());
}

void MeasuredPointsChart::paint(QPainter &painter, const QRectF &rect) const {
    render::paintMeasuredPoints(painter, rect, points_.get(), currentPalette());
}

FrontierPanel::FrontierPanel(std::shared_ptr<const Model> model, QWidget *parent)
    : QWidget(parent), model_(std::move(model)), stop_(std::make_shared<std::atomic<bool>>(false)),
      done_(std::make_shared<std::atomic<int>>(0)) {
    chart_ = new FrontierChart(this);
    status_ = new QLabel(this);
    status_->setWordWrap(true);
    progress_ = new QProgressBar(this);
    progress_->setRange(0, 1000);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(chart_, 1);
    layout->addWidget(status_);
    layout->addWidget(progress_);

    status_->setText(tr("Planning the least compute for every budget\u2026"));
    auto stop = stop_;
    auto done = done_;
    watcher_.setFuture(QtConcurrent::run([model = model_, stop, done]() -> Outcome {
        FrontierOptions options;
        options.progress = [done](double fraction) { done->store(static_cast<int>(fraction * 1000)); };
        options.cancelled = [stop] { return stop->load(); };
        try {
            if (model->isOpLevel()) {
                // The op-level and block-level plans' curves and the named
                // policies (core/op_frontier.h), as `remat plan --granularity op --frontier`.
                OpPlannerOptions op;
                op.progress = options.progress;
                op.cancelled = options.cancelled;
                return {opFrontierCurves(computeOpFrontier(*model, opGraph(*model), options.samples, op)), false, {}};
            }
            return {computeFrontier(*model, options), false, {}};
        } catch (const Cancelled &) {
            return {std::nullopt, true, {}};
        } catch (const std::exception &e) {
            return {std::nullopt, false, QString::fromUtf8(e.what())};
        }
    }));
    connect(&watcher_, &QFutureWatcher<Outcome>::finished, this, &FrontierPanel::onFinished);
    auto *timer = new QTimer(this);
    connect(timer, &QTimer::timeout, this, [this] { progress_->setValue(done_->load()); });
    connect(&watcher_, &QFutureWatcher<Outcome>::finished, timer, &QObject::deleteLater);
    timer->start(50);
}

FrontierPanel::~FrontierPanel() {
    stop_->store(true);
    watcher_.waitForFinished();
}

QString FrontierPanel::statusText() const {
    return status_->text();
}

void FrontierPanel::setStatus(const QString &text) {
    status_->setText(text);
}

void FrontierPanel::cancel() {
    if (!isComputing())
        return;
    stop_->store(true);
    status_->setText(tr("Cancelling\u2026"));
}

void FrontierPanel::onFinished() {
    progress_->hide();
    Outcome outcome = watcher_.result();
    if (outcome.cancelled) {
        status_->setText(tr("Cancelled."));
        emit computed(false);
        return;
    }
    if (!outcome.frontier) {
        status_->setText(tr("Could not plan the curve: %1").arg(outcome.error));
        emit computed(false);
        return;
    }
    Frontier f = std::move(*outcome.frontier);
    QString text = tr("%1 steps from %2 to store-all's %3; each point is a schedule counted by the simulator.")
                       .arg(f.curve.size())
                       .arg(qs(formatSize(f.curve.empty() ? 0 : f.curve.front().peakBytes, model_->sizesInNodes())),
                            qs(formatSize(f.storeAllBytes, model_->sizesInNodes())));
    if (!f.blockCurve.empty())
        text += tr(" Op level: the solid staircase keeps and re-runs single tensors; the dashed one keeps or re-runs "
                   "whole blocks.");
    chart_->setFrontier(std::move(f), model_->sizesInNodes(), model_->costUnit());
    status_->setText(text);
    emit computed(true);
}

FrontierDialog::FrontierDialog(std::shared_ptr<const Model> model, const QString &modelName, QWidget *parent,
                               Session *session)
    : QDialog(parent), session_(session) {
    setWindowTitle(tr("Trade-off curve: %1").arg(modelName));
    splitter_ = new QSplitter(Qt::Horizontal, this);
    panel_ = new FrontierPanel(std::move(model), splitter_);
    splitter_->addWidget(panel_);
    if (session_) {
        measuredBox_ = new QWidget(splitter_);
        measured_ = new MeasuredPointsChart(measuredBox_);
        measuredText_ = new QLabel(measuredBox_);
        measuredText_->setObjectName(QStringLiteral("measuredText"));
        measuredText_->setWordWrap(true);
        auto *box = new QVBoxLayout(measuredBox_);
        box->setContentsMargins(0, 0, 0, 0);
        box->addWidget(measured_, 1);
        box->addWidget(measuredText_);
        splitter_->addWidget(measuredBox_);
        splitter_->setStretchFactor(0, 1);
        splitter_->setStretchFactor(1, 1);
        measuredBox_->hide(); // until the session has points
    }
    auto *buttons = new QDialogButtonBox(this);
    png_ = buttons->addButton(tr("Export PNG\u2026"), QDialogButtonBox::ActionRole);
    csv_ = buttons->addButton(tr("Export CSV\u2026"), QDialogButtonBox::ActionRole);
    close_ = buttons->addButton(QDialogButtonBox::Close);
    close_->setObjectName(QStringLiteral("close"));
    close_->setText(tr("Cancel"));
    png_->setEnabled(false);
    csv_->setEnabled(false);
    connect(buttons, &QDialogButtonBox::rejected, this, &FrontierDialog::reject);
    connect(png_, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export the curve as PNG"),
                                                          QStringLiteral("frontier.png"), tr("PNG images (*.png)"));
        if (!path.isEmpty())
            exportPng(path);
    });
    connect(csv_, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export the curve as CSV"),
                                                          QStringLiteral("frontier.csv"), tr("CSV files (*.csv)"));
        if (!path.isEmpty())
            exportCsv(path);
    });
    connect(panel_, &FrontierPanel::computed, this, [this](bool ok) {
        close_->setText(tr("Close"));
        png_->setEnabled(ok);
        csv_->setEnabled(ok);
        emit computed(ok);
    });
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(splitter_, 1);
    layout->addWidget(buttons);
    resize(960, 640);
    if (session_) {
        connect(session_, &Session::measuredPointsChanged, this, &FrontierDialog::showMeasuredPoints);
        showMeasuredPoints();
    }
}

QString FrontierDialog::measuredText() const {
    return measuredText_ ? measuredText_->text() : QString();
}

void FrontierDialog::showMeasuredPoints() {
    const std::shared_ptr<const RaceResult> &race = session_->measuredPoints();
    const bool wasShown = measuredBox_->isVisibleTo(this);
    measured_->setPoints(race);
    measuredBox_->setVisible(race != nullptr);
    if (!race)
        return;
    QStringList notRun, reasons;
    for (const RaceNotRun &n : race->notRun) {
        notRun << qs(n.who);
        reasons << qs(n.who + ": " + n.reason);
    }
    QString text =
        tr("%1 points from %2%3, measured by bench/framework_race.py: each configuration's peak observed "
           "in PyTorch and the FLOPs it re-ran. Another model than the curve's, and FLOPs re-run rather than "
           "total compute: on their own axes.")
            .arg(race->points.size())
            .arg(QFileInfo(session_->measuredPointsFile()).fileName(),
                 race->date.empty() ? QString() : QStringLiteral(" (%1)").arg(qs(race->date)));
    if (!notRun.isEmpty())
        text += tr(" Not run: %1.").arg(notRun.join(QStringLiteral("; ")));
    measuredText_->setText(text);
    measuredText_->setToolTip(reasons.join(QLatin1Char('\n')));
    if (!wasShown) {
        // Room for both charts side by side, within the screen.
        QSize size(std::max(width(), 1560), std::max(height(), 720));
        if (const QScreen *screen = this->screen())
            size = size.boundedTo(screen->availableSize() * 0.95);
        resize(size);
        splitter_->setSizes({size.width() * 9 / 20, size.width() * 11 / 20});
    }
}

bool FrontierDialog::exportPng(const QString &path, QSize size) {
    const FrontierChart *curve = chart();
    if (!curve->frontier()) {
        panel_->setStatus(tr("Nothing to export yet."));
        return false;
    }
    QImage image(size, QImage::Format_ARGB32);
    {
        QPainter painter(&image);
        curve->paint(painter, QRectF(QPointF(0, 0), QSizeF(size)));
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || !image.save(&file, "PNG") || !file.commit()) {
        panel_->setStatus(tr("Could not write %1: %2").arg(path, file.errorString()));
        return false;
    }
    panel_->setStatus(tr("Saved %1").arg(path));
    return true;
}

bool FrontierDialog::exportCsv(const QString &path) {
    const FrontierChart *curve = chart();
    if (!curve->frontier()) {
        panel_->setStatus(tr("Nothing to export yet."));
        return false;
    }
    QSaveFile file(path);
    const QByteArray csv = QByteArray::fromStdString(frontierCsv(*curve->frontier()));
    if (!file.open(QIODevice::WriteOnly) || file.write(csv) != csv.size() || !file.commit()) {
        panel_->setStatus(tr("Could not write %1: %2").arg(path, file.errorString()));
        return false;
    }
    panel_->setStatus(tr("Saved %1").arg(path));
    return true;
}

void FrontierDialog::reject() {
    if (isComputing()) {
        panel_->cancel();
        return;
    }
    QDialog::reject();
}

namespace {

void showCurve(Session &session, QWidget *parent) {
    const QString name = session.modelName().isEmpty() ? QObject::tr("uniform chain of %1 layers").arg(session.layers())
                                                       : session.modelName();
    auto *dialog = new FrontierDialog(session.model(), name, parent, &session);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
}

} // namespace

bool addMeasuredPoints(Session &session, const QString &path, QWidget *parent) {
    const QString error = session.loadMeasuredPoints(path);
    if (error.isEmpty())
        return true;
    auto *box =
        new QMessageBox(QMessageBox::Warning, QObject::tr("Measured points not added"),
                        QObject::tr("Could not read the race's points from %1.").arg(path), QMessageBox::Ok, parent);
    box->setObjectName(QStringLiteral("measuredPointsError"));
    box->setInformativeText(error);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
    session.say(error);
    return false;
}

void addFrontierAction(QMenu *menu, Session &session, QWidget *parent) {
    QMenu *curveMenu = menu->addMenu(QObject::tr("&Trade-off curve"));
    curveMenu->setObjectName(QStringLiteral("tradeOffMenu"));
    QAction *action = curveMenu->addAction(QObject::tr("&Show curve\u2026"), parent,
                                           [&session, parent] { showCurve(session, parent); });
    action->setObjectName(QStringLiteral("tradeOffCurve"));
    action->setShortcut(QKeySequence(QObject::tr("Ctrl+T")));
    QAction *add = curveMenu->addAction(QObject::tr("&Add measured points\u2026"), parent, [&session, parent] {
        const QString path =
            QFileDialog::getOpenFileName(parent, QObject::tr("Measured points: bench/framework_race.py's JSON"),
                                         QString(), QObject::tr("Race results (*.json);;All files (*)"));
        if (path.isEmpty() || !addMeasuredPoints(session, path, parent))
            return;
        if (!parent->findChild<FrontierDialog *>()) // an open one follows the session
            showCurve(session, parent);
    });
    add->setObjectName(QStringLiteral("addMeasuredPoints"));
    QAction *clear = curveMenu->addAction(QObject::tr("&Clear measured points"), parent,
                                          [&session] { session.clearMeasuredPoints(); });
    clear->setObjectName(QStringLiteral("clearMeasuredPoints"));
    clear->setEnabled(session.measuredPoints() != nullptr);
    QObject::connect(&session, &Session::measuredPointsChanged, clear,
                     [&session, clear] { clear->setEnabled(session.measuredPoints() != nullptr); });
}

} // namespace remat::studio
