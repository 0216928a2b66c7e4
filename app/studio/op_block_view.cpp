#include "app/studio/op_block_view.h"

#include "app/render/op_block_layout.h"
#include "app/studio/player.h"
#include "app/studio/session.h"

#include <QApplication>
#include <QEvent>
#include <QMouseEvent>
#include <QPainter>

namespace remat::studio {

namespace {

render::Palette currentPalette() {
    return render::Palette::forDarkMode(QApplication::palette().color(QPalette::Window).lightness() < 128);
}

} // namespace

OpBlockView::OpBlockView(Session &session, Player &player, QWidget *parent)
    : QWidget(parent), session_(session), player_(player) {
    setObjectName(QStringLiteral("opBlockView"));
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed); // its height follows the opened block
    connect(&session_, &Session::modelChanged, this, &OpBlockView::modelChanged);
    connect(&session_, &Session::runsChanged, this, &OpBlockView::paneChanged);
    connect(&session_, &Session::currentPaneChanged, this, &OpBlockView::paneChanged);
    connect(&session_, &Session::paneConfigChanged, this, &OpBlockView::paneChanged);
    connect(&session_, &Session::openedBlockChanged, this, &OpBlockView::fitHeight);
    connect(&player_, &Player::positionChanged, this, qOverload<>(&QWidget::update));
    fitHeight();
    modelChanged();
}

void OpBlockView::modelChanged() {
    graph_.reset();
    if (session_.model()->isOpLevel()) {
        try {
            graph_ = opGraph(*session_.model());
        } catch (const std::exception &) {
            // No block of two or more ops: nothing to open; the panel stays hidden.
        }
    }
    setVisible(graph_.has_value() && !presenting_);
    paneChanged();
}

void OpBlockView::paneChanged() {
    const QString shown = title();
    setToolTip(tr("%1. Double-click a block to open it into its ops: kept, re-run, in memory now. Click another "
                  "pane (or Ctrl+Tab) to show its plan here.")
                   .arg(shown));
    setAccessibleName(shown);
    update();
}

void OpBlockView::fitHeight() {
    // Room for a block's ops (GPT-2's 24 fill three rows at 1280 pixels).
    const int body = session_.openedBlock() < 0 ? static_cast<int>(render::OpBlockLayout::kStripHeight) + 8 : 190;
    setMinimumHeight(titleHeight() + body);
    updateGeometry();
    update();
}

void OpBlockView::changeEvent(QEvent *event) {
    if (event->type() == QEvent::FontChange)
        fitHeight();
    QWidget::changeEvent(event);
}

void OpBlockView::setPresenting(bool on) {
    presenting_ = on;
    setVisible(graph_.has_value() && !presenting_);
}

std::shared_ptr<const Timeline> OpBlockView::shownTimeline() const {
    const int pane = session_.currentPane();
    if (!graph_ || pane < 0)
        return nullptr;
    const auto &run = session_.run(pane);
    return run && run->model == session_.model() ? run->timeline : nullptr;
}

QString OpBlockView::title() const {
    const int pane = session_.currentPane();
    if (pane < 0)
        return tr("Blocks");
    const QString strategy = QString::fromStdString(session_.paneConfig(pane).strategy);
    return shownTimeline() ? tr("Blocks of pane %1 (%2): ops re-run per block").arg(pane + 1).arg(strategy)
                           : tr("Blocks of pane %1 (%2): no run to show").arg(pane + 1).arg(strategy);
}

int OpBlockView::titleHeight() const {
    return fontMetrics().height() + 4;
}

QRectF OpBlockView::blocksRect() const {
    return QRectF(rect()).adjusted(4, titleHeight(), -4, -4);
}

void OpBlockView::paintEvent(QPaintEvent *) {
    QPainter painter(this);
    const render::Palette palette = currentPalette();
    painter.fillRect(rect(), palette.background);
    // The title, with the swatch of the pane it shows (the colour of that pane's frame and curve).
    const int pane = session_.currentPane();
    const QRectF titleRect(4, 2, width() - 8, titleHeight() - 2);
    const double swatch = fontMetrics().ascent() * 0.8;
    painter.fillRect(QRectF(titleRect.left(), titleRect.center().y() - swatch / 2, swatch, swatch),
                     palette.paneColour(pane));
    painter.setPen(palette.text);
    painter.drawText(
        titleRect.adjusted(swatch + 6, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter,
        fontMetrics().elidedText(title(), Qt::ElideRight, static_cast<int>(titleRect.width() - swatch - 6)));
    const std::shared_ptr<const Timeline> timeline = shownTimeline();
    if (!timeline)
        return;
    const int track = session_.trackOf(pane);
    const StepState state = timeline->stateAt(track < 0 ? -1 : player_.stepOf(track));
    render::paintOpBlocks(painter, blocksRect(), *timeline, *graph_, session_.openedBlock(), state, palette);
}

void OpBlockView::mouseDoubleClickEvent(QMouseEvent *event) {
    if (!graph_)
        return;
    const auto blocks = render::selectableBlocks(*graph_);
    const render::OpBlockLayout l =
        render::OpBlockLayout::make(blocksRect(), static_cast<int>(blocks.size()), -1, 0, 0);
    const int block = l.blockAt(event->position());
    if (block >= 0)
        session_.setOpenedBlock(block);
}

} // namespace remat::studio
