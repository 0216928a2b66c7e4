#include "app/studio/frontier_view.h"

#include "app/render/palette.h"
#include "app/studio/main_window.h"
#include "core/errors.h"
#include "core/units.h"

#include <QApplication>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QImage>
#include <QLabel>
#include <QMenu>
#include <QPainter>
#include <QPainterPath>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>

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
    const render::Palette palette = currentPalette();
    painter.fillRect(rect, palette.background);
    painter.setRenderHint(QPainter::Antialiasing, true);
    const QFontMetricsF metrics(painter.font());
    if (!frontier_ || frontier_->curve.empty()) {
        painter.setPen(palette.mutedText);
        painter.drawText(rect, Qt::AlignCenter, QObject::tr("No curve yet"));
        return;
    }
    const Frontier &f = *frontier_;
    // Axes: peak memory from 0 to a little past store-all's, cost from 0 to the dearest point.
    double maxCost = 0;
    std::int64_t maxPeak = f.storeAllBytes;
    for (const auto &p : f.curve) {
        maxCost = std::max(maxCost, p.cost);
        maxPeak = std::max(maxPeak, p.peakBytes);
    }
    for (const auto &p : f.named) {
        maxCost = std::max(maxCost, p.cost);
        maxPeak = std::max(maxPeak, p.peakBytes);
    }
    const double left = rect.left() + metrics.horizontalAdvance(QStringLiteral("000000.0 GFLOP")) + 10;
    const QRectF plot(left, rect.top() + metrics.height() * 2, rect.right() - left - 20,
                      rect.height() - metrics.height() * 5);
    auto x = [&](double bytes) { return plot.left() + plot.width() * bytes / (1.05 * static_cast<double>(maxPeak)); };
    auto y = [&](double cost) { return plot.bottom() - plot.height() * cost / (1.08 * maxCost); };

    painter.setPen(QPen(palette.grid, 1));
    for (int k = 0; k <= 4; ++k) {
        const double c = 1.08 * maxCost * k / 4;
        painter.drawLine(QPointF(plot.left(), y(c)), QPointF(plot.right(), y(c)));
        painter.setPen(palette.mutedText);
        painter.drawText(QRectF(rect.left(), y(c) - metrics.height() / 2, left - rect.left() - 6, metrics.height()),
                         Qt::AlignRight | Qt::AlignVCenter, qs(formatCost(c, costUnit_)));
        painter.setPen(QPen(palette.grid, 1));
    }
    for (int k = 0; k <= 4; ++k) {
        const double b = 1.05 * static_cast<double>(maxPeak) * k / 4;
        painter.setPen(palette.mutedText);
        // The last tick ends at the plot's edge rather than past it.
        const QRectF where = k == 4 ? QRectF(x(b) - 120, plot.bottom() + 2, 120, metrics.height())
                                    : QRectF(x(b) - 60, plot.bottom() + 2, 120, metrics.height());
        painter.drawText(where, (k == 4 ? Qt::AlignRight : Qt::AlignHCenter) | Qt::AlignTop,
                         qs(formatSize(static_cast<std::int64_t>(b), sizesInNodes_)));
    }
    painter.setPen(palette.text);
    painter.drawText(QRectF(plot.left(), plot.bottom() + metrics.height() + 4, plot.width(), metrics.height()),
                     Qt::AlignHCenter, QObject::tr("peak memory"));
    painter.drawText(QRectF(rect.left() + 4, rect.top(), rect.width(), metrics.height() * 1.5),
                     Qt::AlignLeft | Qt::AlignVCenter,
                     QObject::tr("least compute for each peak (staircase) and named strategies (points); "
                                 "compute in %1")
                         .arg(costUnit_.empty() ? QObject::tr("op costs") : qs(costUnit_)));

    // The staircase: a plan with peak p serves every budget from p until the next, cheaper one.
    QPainterPath path;
    path.moveTo(x(static_cast<double>(f.curve.front().peakBytes)), y(f.curve.front().cost));
    for (std::size_t i = 1; i < f.curve.size(); ++i) {
        path.lineTo(x(static_cast<double>(f.curve[i].peakBytes)), y(f.curve[i - 1].cost));
        path.lineTo(x(static_cast<double>(f.curve[i].peakBytes)), y(f.curve[i].cost));
    }
    path.lineTo(plot.right(), y(f.curve.back().cost));
    painter.setPen(QPen(palette.paneColour(0), 2.5));
    painter.setBrush(Qt::NoBrush);
    painter.drawPath(path);

    // Named points, labels stepped down so that neighbours do not overlap.
    std::vector<QRectF> placed;
    for (std::size_t i = 0; i < f.named.size(); ++i) {
        const NamedPoint &p = f.named[i];
        const QPointF c(x(static_cast<double>(p.peakBytes)), y(p.cost));
        const QColor colour = palette.paneColour(static_cast<int>(i % 3) + 1);
        painter.setPen(QPen(palette.nodeOutline, 1));
        painter.setBrush(colour);
        painter.drawEllipse(c, 5, 5);
        const QString text = qs(p.label);
        QRectF box(c.x() + 8, c.y() - metrics.height() - 4, metrics.horizontalAdvance(text) + 6, metrics.height());
        if (box.right() > rect.right())
            box.moveRight(c.x() - 8);
        for (int tries = 0; tries < 12 && std::any_of(placed.begin(), placed.end(),
                                                        [&](const QRectF &r) { return r.intersects(box); });
             ++tries)
            box.translate(0, metrics.height());
        placed.push_back(box);
        QColor backing = palette.background;
        backing.setAlpha(210);
        painter.setPen(Qt::NoPen);
        painter.setBrush(backing);
        painter.drawRoundedRect(box, 3, 3);
        painter.setPen(colour.darker(palette.isDark() ? 80 : 130));
        painter.drawText(box, Qt::AlignCenter, text);
    }
}

FrontierDialog::FrontierDialog(std::shared_ptr<const Model> model, const QString &modelName, QWidget *parent)
    : QDialog(parent), model_(std::move(model)), stop_(std::make_shared<std::atomic<bool>>(false)),
      done_(std::make_shared<std::atomic<int>>(0)) {
    setWindowTitle(tr("Trade-off curve: %1").arg(modelName));
    chart_ = new FrontierChart(this);
    status_ = new QLabel(this);
    status_->setWordWrap(true);
    progress_ = new QProgressBar(this);
    progress_->setRange(0, 1000);
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
        const QString path = QFileDialog::getSaveFileName(this, tr("Export the curve as PNG"), QStringLiteral("frontier.png"),
                                                          tr("PNG images (*.png)"));
        if (!path.isEmpty())
            exportPng(path);
    });
    connect(csv_, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export the curve as CSV"), QStringLiteral("frontier.csv"),
                                                          tr("CSV files (*.csv)"));
        if (!path.isEmpty())
            exportCsv(path);
    });
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(chart_, 1);
    layout->addWidget(status_);
    layout->addWidget(progress_);
    layout->addWidget(buttons);
    resize(960, 640);

    status_->setText(tr("Planning the least compute for every budget\u2026"));
    auto stop = stop_;
    auto done = done_;
    watcher_.setFuture(QtConcurrent::run([model = model_, stop, done]() -> Outcome {
        FrontierOptions options;
        options.progress = [done](double fraction) { done->store(static_cast<int>(fraction * 1000)); };
        options.cancelled = [stop] { return stop->load(); };
        try {
            return {computeFrontier(*model, options), false, {}};
        } catch (const Cancelled &) {
            return {std::nullopt, true, {}};
        } catch (const std::exception &e) {
            return {std::nullopt, false, QString::fromUtf8(e.what())};
        }
    }));
    connect(&watcher_, &QFutureWatcher<Outcome>::finished, this, &FrontierDialog::onFinished);
    auto *timer = new QTimer(this);
    connect(timer, &QTimer::timeout, this, [this] { progress_->setValue(done_->load()); });
    connect(&watcher_, &QFutureWatcher<Outcome>::finished, timer, &QObject::deleteLater);
    timer->start(50);
}

FrontierDialog::~FrontierDialog() {
    stop_->store(true);
    watcher_.waitForFinished();
}

QString FrontierDialog::statusText() const {
    return status_->text();
}

void FrontierDialog::onFinished() {
    close_->setText(tr("Close"));
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
    {
        Frontier f = std::move(*outcome.frontier);
        const QString text =
            tr("%1 steps from %2 to store-all's %3; each point is a schedule counted by the simulator.")
                .arg(f.curve.size())
                .arg(qs(formatSize(f.curve.empty() ? 0 : f.curve.front().peakBytes, model_->sizesInNodes())),
                     qs(formatSize(f.storeAllBytes, model_->sizesInNodes())));
        chart_->setFrontier(std::move(f), model_->sizesInNodes(), model_->costUnit());
        status_->setText(text);
        png_->setEnabled(true);
        csv_->setEnabled(true);
        emit computed(true);
    }
}

bool FrontierDialog::exportPng(const QString &path, QSize size) {
    if (!chart_->frontier()) {
        status_->setText(tr("Nothing to export yet."));
        return false;
    }
    QImage image(size, QImage::Format_ARGB32);
    {
        QPainter painter(&image);
        chart_->paint(painter, QRectF(QPointF(0, 0), QSizeF(size)));
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || !image.save(&file, "PNG") || !file.commit()) {
        status_->setText(tr("Could not write %1: %2").arg(path, file.errorString()));
        return false;
    }
    status_->setText(tr("Saved %1").arg(path));
    return true;
}

bool FrontierDialog::exportCsv(const QString &path) {
    if (!chart_->frontier()) {
        status_->setText(tr("Nothing to export yet."));
        return false;
    }
    QSaveFile file(path);
    const QByteArray csv = QByteArray::fromStdString(frontierCsv(*chart_->frontier()));
    if (!file.open(QIODevice::WriteOnly) || file.write(csv) != csv.size() || !file.commit()) {
        status_->setText(tr("Could not write %1: %2").arg(path, file.errorString()));
        return false;
    }
    status_->setText(tr("Saved %1").arg(path));
    return true;
}

void FrontierDialog::reject() {
    if (isComputing()) {
        stop_->store(true);
        status_->setText(tr("Cancelling\u2026"));
        return;
    }
    QDialog::reject();
}

void addFrontierAction(QMenu *menu, MainWindow &window) {
    QAction *action = menu->addAction(QObject::tr("&Trade-off curve\u2026"), &window, [&window] {
        auto *dialog = new FrontierDialog(window.model(), window.windowTitle(), &window);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->show();
    });
    action->setObjectName(QStringLiteral("tradeOffCurve"));
    action->setShortcut(QKeySequence(QObject::tr("Ctrl+T")));
}

} // namespace remat::studio
