#include "app/studio/op_block_view.h"

#include "app/render/op_block_layout.h"
#include "app/studio/player.h"
#include "app/studio/session.h"

#include <QApplication>
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
    setMinimumHeight(render::OpBlockLayout::kStripHeight + 8);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed); // its height follows the opened block
    setToolTip(tr("Blocks of the op-level model: double-click one to open it into its ops (kept, re-run, in memory "
                  "now, for the right-most pane)"));
    connect(&session_, &Session::modelChanged, this, &OpBlockView::modelChanged);
    connect(&session_, &Session::runsChanged, this, qOverload<>(&QWidget::update));
    connect(&session_, &Session::openedBlockChanged, this, [this](int block) {
        // Room for a block's ops (GPT-2's 24 fill three rows at 1280 pixels).
        setMinimumHeight(block < 0 ? render::OpBlockLayout::kStripHeight + 8 : 190);
        updateGeometry();
        update();
    });
    connect(&player_, &Player::positionChanged, this, qOverload<>(&QWidget::update));
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
    update();
}

void OpBlockView::setPresenting(bool on) {
    presenting_ = on;
    setVisible(graph_.has_value() && !presenting_);
}

void OpBlockView::paintEvent(QPaintEvent *) {
    QPainter painter(this);
    const render::Palette palette = currentPalette();
    const int pane = session_.paneCount() - 1;
    const auto &run = session_.run(pane);
    if (!graph_ || !run || run->model != session_.model()) {
        painter.fillRect(rect(), palette.background);
        return;
    }
    const Timeline &timeline = *run->timeline;
    const int track = session_.trackOf(pane);
    const StepState state = timeline.stateAt(track < 0 ? -1 : player_.stepOf(track));
    render::paintOpBlocks(painter, QRectF(rect()).adjusted(4, 4, -4, -4), timeline, *graph_, session_.openedBlock(),
                          state, palette);
}

void OpBlockView::mouseDoubleClickEvent(QMouseEvent *event) {
    if (!graph_)
        return;
    const auto blocks = render::selectableBlocks(*graph_);
    const render::OpBlockLayout l =
        render::OpBlockLayout::make(QRectF(rect()).adjusted(4, 4, -4, -4), static_cast<int>(blocks.size()), -1, 0, 0);
    const int block = l.blockAt(event->position());
    if (block >= 0)
        session_.setOpenedBlock(block);
}

} // namespace remat::studio
