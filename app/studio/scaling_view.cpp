#include "app/studio/scaling_view.h"

#include "app/render/palette.h"
#include "core/errors.h"
#include "core/scaling.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"
#include "core/units.h"

#include <QApplication>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <cmath>

namespace remat::studio {

std::vector<int> doublings(int first, int last) {
    std::vector<int> out;
    for (long long n = first; n <= last; n *= 2)
        out.push_back(static_cast<int>(n));
    return out;
}

std::vector<ScalingSeries> computeScaling(const std::vector<int> &ns, const std::function<void(int, int)> &progress,
                                          const std::function<bool()> &cancelled) {
    std::vector<const Strategy *> strategies;
    for (const Strategy *s : StrategyRegistry::builtin().all())
        if (s->runsWithDefaults())
            strategies.push_back(s);
    const int total = static_cast<int>(strategies.size() * ns.size());
    int done = 0;
    std::vector<ScalingSeries> out;
    for (const Strategy *strategy : strategies) {
        ScalingSeries series;
        series.strategy = std::string(strategy->name());
        series.memoryClass = std::string(strategy->memoryClass());
        series.computeClass = std::string(strategy->computeClass());
        for (const int n : ns) {
            if (cancelled && cancelled())
                throw Cancelled();
            if (series.stoppedAt.empty()) {
                try {
                    const Model model = Model::chain(n);
                    StrategyParams params;
                    params.cancelled = cancelled;
                    const Summary summary = Simulator::summarize(model, strategy->makeSchedule(model, params));
                    series.n.push_back(n);
                    series.peakBytes.push_back(static_cast<double>(summary.peakBytes));
                    series.forwardEvaluations.push_back(static_cast<double>(summary.forwardEvaluations));
                } catch (const Cancelled &) {
                    throw;
                } catch (const Error &e) {
                    series.stoppedAt = "stops at n = " + std::to_string(n) + ": " + e.what();
                }
            }
            if (progress)
                progress(++done, total);
        }
        if (series.n.size() >= 2) {
            series.memorySlope = logLogSlope(series.n, series.peakBytes);
            series.computeSlope = logLogSlope(series.n, series.forwardEvaluations);
        }
        out.push_back(std::move(series));
    }
    return out;
}

// ---------------------------------------------------------------- chart

namespace {

QColor seriesColor(const render::Palette &palette, std::size_t i) {
    if (i < 4)
        return palette.series[i];
    return QColor::fromHsv(static_cast<int>((i * 67) % 360), 170, palette.isDark() ? 240 : 190);
}

struct LogAxis {
    double lo = 1, hi = 10; // log10 range
    double map(double v, double from, double to) const { return from + (std::log10(v) - lo) / (hi - lo) * (to - from); }
};

QString compact(double v) {
    if (v >= 1e9)
        return QString::number(v / 1e9, 'g', 3) + QStringLiteral("G");
    if (v >= 1e6)
        return QString::number(v / 1e6, 'g', 3) + QStringLiteral("M");
    if (v >= 1e3)
        return QString::number(v / 1e3, 'g', 3) + QStringLiteral("k");
    return QString::number(v, 'g', 3);
}

void paintPlot(QPainter &p, const QRectF &rect, const std::vector<ScalingSeries> &series, bool memory,
               const render::Palette &palette) {
    const QFontMetricsF fm(p.font());
    const QRectF plot =
        rect.adjusted(fm.horizontalAdvance(QStringLiteral("000.0M")) + 10, fm.height() * 1.8, -10, -fm.height() * 2.6);
    double xmin = 1e300, xmax = 0, ymin = 1e300, ymax = 0;
    for (const ScalingSeries &s : series)
        for (std::size_t i = 0; i < s.n.size(); ++i) {
            const double y = memory ? s.peakBytes[i] : s.forwardEvaluations[i];
            xmin = std::min(xmin, s.n[i]);
            xmax = std::max(xmax, s.n[i]);
            ymin = std::min(ymin, std::max(y, 1.0));
            ymax = std::max(ymax, y);
        }
    p.setPen(palette.text);
    p.drawText(QRectF(plot.left(), rect.top(), plot.width(), fm.height() * 1.5), Qt::AlignLeft | Qt::AlignVCenter,
               memory ? QObject::tr("peak memory (bytes, 1 byte per node)") : QObject::tr("forward evaluations"));
    if (xmax <= 0)
        return;
    const LogAxis x{std::log10(xmin), std::max(std::log10(xmax), std::log10(xmin) + 1)};
    const LogAxis y{std::floor(std::log10(ymin)),
                    std::max(std::ceil(std::log10(ymax)), std::floor(std::log10(ymin)) + 1)};

    // Grid: decades on y, the sampled n on x.
    for (int d = static_cast<int>(y.lo); d <= static_cast<int>(y.hi); ++d) {
        const double py = y.map(std::pow(10.0, d), plot.bottom(), plot.top());
        p.setPen(QPen(palette.grid, 1));
        p.drawLine(QPointF(plot.left(), py), QPointF(plot.right(), py));
        p.setPen(palette.mutedText);
        p.drawText(QRectF(rect.left(), py - fm.height() / 2, plot.left() - rect.left() - 6, fm.height()),
                   Qt::AlignRight | Qt::AlignVCenter, compact(std::pow(10.0, d)));
    }
    for (double n = xmin; n <= xmax; n *= 4) {
        const double px = x.map(n, plot.left(), plot.right());
        p.setPen(QPen(palette.grid, 1));
        p.drawLine(QPointF(px, plot.top()), QPointF(px, plot.bottom()));
        p.setPen(palette.mutedText);
        p.drawText(QRectF(px - 30, plot.bottom() + 2, 60, fm.height()), Qt::AlignHCenter | Qt::AlignTop,
                   QString::number(n));
    }
    p.drawText(QRectF(plot.left(), plot.bottom() + fm.height() + 2, plot.width(), fm.height()),
               Qt::AlignHCenter | Qt::AlignTop, QObject::tr("layers n (log scale)"));

    p.setRenderHint(QPainter::Antialiasing, true);
    std::vector<QRectF> labels; // slope labels already placed: a colliding one moves up
    for (std::size_t k = 0; k < series.size(); ++k) {
        const ScalingSeries &s = series[k];
        QPolygonF line;
        for (std::size_t i = 0; i < s.n.size(); ++i)
            line << QPointF(
                x.map(s.n[i], plot.left(), plot.right()),
                y.map(std::max(memory ? s.peakBytes[i] : s.forwardEvaluations[i], 1.0), plot.bottom(), plot.top()));
        const QColor c = seriesColor(palette, k);
        p.setPen(QPen(c, 2));
        p.drawPolyline(line);
        p.setBrush(c);
        for (const QPointF &pt : line)
            p.drawEllipse(pt, 2.5, 2.5);
        if (!line.isEmpty()) {
            p.setPen(c);
            const double slope = memory ? s.memorySlope : s.computeSlope;
            const QString text = QObject::tr("slope %1").arg(slope, 0, 'f', 2);
            const double w = fm.horizontalAdvance(text) + 2;
            QRectF box(line.back().x() - w - 4, line.back().y() - fm.height() - 4, w, fm.height());
            for (bool moved = true; moved;) {
                moved = false;
                for (const QRectF &other : labels)
                    if (box.adjusted(0, -2, 0, 2).intersects(other)) {
                        box.moveBottom(other.top() - 3);
                        moved = true;
                    }
            }
            labels.push_back(box);
            p.drawText(box, Qt::AlignRight | Qt::AlignVCenter, text);
        }
    }
    p.setRenderHint(QPainter::Antialiasing, false);
}

} // namespace

ScalingChart::ScalingChart(QWidget *parent) : QWidget(parent) {
    setMinimumSize(500, 260);
}

void ScalingChart::setSeries(std::vector<ScalingSeries> series) {
    series_ = std::move(series);
    update();
}

void ScalingChart::paintEvent(QPaintEvent *) {
    const render::Palette palette =
        render::Palette::forDarkMode(QApplication::palette().color(QPalette::Window).lightness() < 128);
    QPainter p(this);
    p.fillRect(rect(), palette.background);
    const QFontMetricsF fm(p.font());
    // Legend on top.
    double lx = 8;
    for (std::size_t k = 0; k < series_.size(); ++k) {
        const QString name = QString::fromStdString(series_[k].strategy);
        p.fillRect(QRectF(lx, fm.height() * 0.5, 14, 4), seriesColor(palette, k));
        p.setPen(palette.text);
        p.drawText(QPointF(lx + 18, fm.height() * 0.5 + fm.ascent() / 2), name);
        lx += 30 + fm.horizontalAdvance(name);
    }
    const QRectF area = QRectF(rect()).adjusted(4, fm.height() * 1.4, -4, -4);
    const double half = area.width() / 2;
    paintPlot(p, QRectF(area.left(), area.top(), half - 4, area.height()), series_, true, palette);
    paintPlot(p, QRectF(area.left() + half + 4, area.top(), half - 4, area.height()), series_, false, palette);
}

// ---------------------------------------------------------------- dialog

ScalingDialog::ScalingDialog(QWidget *parent, int lastN)
    : QDialog(parent), stop_(std::make_shared<std::atomic<bool>>(false)), done_(std::make_shared<std::atomic<int>>(0)),
      total_(std::make_shared<std::atomic<int>>(1)) {
    setWindowTitle(tr("Scaling laws"));
    chart_ = new ScalingChart(this);
    table_ = new QTableWidget(0, 5, this);
    table_->setObjectName(QStringLiteral("slopes"));
    table_->setHorizontalHeaderLabels(
        {tr("Strategy"), tr("Memory slope"), tr("Memory class"), tr("Compute slope"), tr("Compute class")});
    table_->verticalHeader()->hide();
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->setMaximumHeight(180);
    status_ = new QLabel(this);
    status_->setWordWrap(true);
    progress_ = new QProgressBar(this);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    cancel_ = buttons->button(QDialogButtonBox::Close);
    cancel_->setText(tr("Cancel"));
    connect(buttons, &QDialogButtonBox::rejected, this, &ScalingDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(chart_, 1);
    layout->addWidget(table_);
    layout->addWidget(status_);
    layout->addWidget(progress_);
    layout->addWidget(buttons);
    resize(960, 680);

    const std::vector<int> ns = doublings(4, lastN);
    status_->setText(tr("Simulating every strategy at n = 4 \u2026 %1\u2026").arg(lastN));
    auto stop = stop_;
    auto done = done_;
    auto total = total_;
    watcher_.setFuture(QtConcurrent::run([ns, stop, done, total] {
        return computeScaling(
            ns,
            [done, total](int d, int t) {
                done->store(d);
                total->store(t);
            },
            [stop] { return stop->load(); });
    }));
    connect(&watcher_, &QFutureWatcher<std::vector<ScalingSeries>>::finished, this, &ScalingDialog::onFinished);
    auto *timer = new QTimer(this);
    connect(timer, &QTimer::timeout, this, [this] {
        progress_->setRange(0, total_->load());
        progress_->setValue(done_->load());
    });
    connect(&watcher_, &QFutureWatcher<std::vector<ScalingSeries>>::finished, timer, &QObject::deleteLater);
    timer->start(50);
}

ScalingDialog::~ScalingDialog() {
    stop_->store(true);
    watcher_.waitForFinished();
}

void ScalingDialog::onFinished() {
    cancel_->setText(tr("Close"));
    progress_->hide();
    std::vector<ScalingSeries> series;
    try {
        series = watcher_.result();
    } catch (const Cancelled &) {
        status_->setText(tr("Cancelled."));
        emit computed(false);
        return;
    } catch (const std::exception &e) {
        status_->setText(QString::fromUtf8(e.what()));
        emit computed(false);
        return;
    }
    QStringList notes;
    table_->setRowCount(static_cast<int>(series.size()));
    for (std::size_t i = 0; i < series.size(); ++i) {
        const ScalingSeries &s = series[i];
        const int row = static_cast<int>(i);
        const bool fitted = s.n.size() >= 2;
        table_->setItem(row, 0, new QTableWidgetItem(QString::fromStdString(s.strategy)));
        table_->setItem(
            row, 1, new QTableWidgetItem(fitted ? QString::number(s.memorySlope, 'f', 2) : QStringLiteral("\u2014")));
        table_->setItem(row, 2, new QTableWidgetItem(QString::fromStdString(s.memoryClass)));
        table_->setItem(
            row, 3, new QTableWidgetItem(fitted ? QString::number(s.computeSlope, 'f', 2) : QStringLiteral("\u2014")));
        table_->setItem(row, 4, new QTableWidgetItem(QString::fromStdString(s.computeClass)));
        if (!s.stoppedAt.empty())
            notes << QString::fromStdString(s.strategy + " " + s.stoppedAt);
    }
    status_->setText(tr("Slopes fitted by least squares on log(value) against log(n); 1 is O(n), 0.5 is O(sqrt n), "
                        "2 is O(n\u00B2).") +
                     (notes.isEmpty() ? QString() : QStringLiteral("\n") + notes.join(QStringLiteral("\n"))));
    chart_->setSeries(std::move(series));
    emit computed(true);
}

void ScalingDialog::reject() {
    if (isComputing()) {
        stop_->store(true);
        status_->setText(tr("Cancelling\u2026"));
        return;
    }
    QDialog::reject();
}

void addScalingAction(QMenu *menu, QWidget *parent) {
    QAction *action = menu->addAction(QObject::tr("&Scaling laws\u2026"), parent, [parent] {
        auto *dialog = new ScalingDialog(parent);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->show();
    });
    action->setShortcut(QKeySequence(QObject::tr("Ctrl+G")));
}

} // namespace remat::studio
