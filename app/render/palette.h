#pragma once
// The colours of every studio picture, in a light and a dark variant. One
// palette serves the screen and the GIF export so both look the same.
#include <QColor>

namespace remat::render {

struct Palette {
    QColor background;
    QColor text;
    QColor mutedText;
    QColor grid;
    QColor arrow;
    // Node fills. Every fill of a resident node differs from every fill of a
    // node that is not resident, so a glance (or a test reading pixels) tells
    // what is in memory.
    QColor notComputed; // not yet computed: hollow
    QColor nodeOutline;
    QColor resident;   // in memory: filled purple, as in the classic figures
    QColor recomputed; // in memory, computed more than once
    QColor current;    // computed by the current op
    QColor freed;      // computed before, no longer in memory
    QColor checkpointRing;
    // Offloading (the host lane under a timed pane): a node whose only copy
    // is on the host; a copy on the link; the compute stream waiting for one.
    QColor onHost;
    QColor inFlight;
    QColor stall;
    QColor badge; // recompute counter
    QColor badgeText;
    QColor hover;
    QColor peak;
    QColor playhead;
    // One colour per pane (chart curve, table swatch, pane title), by the
    // pane's place in the window: it stays when other panes are still
    // simulating or refused. None equals a node fill, `current` least of all.
    QColor series[4];
    QColor paneColour(int pane) const { return series[(pane < 0 ? 0 : pane) % 4]; }

    static Palette light();
    static Palette dark();
    static Palette forDarkMode(bool dark) { return dark ? Palette::dark() : Palette::light(); }
    bool isDark() const { return background.lightness() < 128; }
    bool operator==(const Palette &) const = default;
};

} // namespace remat::render
