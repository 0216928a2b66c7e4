#pragma once
// A lesson's chapter on screen, above the panes: its title, its caption in
// large type (read from the back of the room), and where the lecturer is
// (chapter k of n, the stops passed as dots).
#include <QWidget>

class QLabel;

namespace remat::studio {

class LessonCaption : public QWidget {
    Q_OBJECT
public:
    explicit LessonCaption(QWidget *parent = nullptr);
    void setChapter(int index, int count, const QString &title, const QString &caption);
    // `passed` of `total` stops reached (the chapter's end is the last stop).
    void setProgress(int passed, int total, const QString &hint);
    QString title() const;
    QString caption() const;
    QString progress() const;
    // The caption's text size against the window's text.
    static constexpr double kCaptionScale = 1.3;
    static constexpr double kTitleScale = 1.5;

protected:
    void changeEvent(QEvent *event) override;

private:
    void applyFonts();
    QLabel *title_;
    QLabel *caption_;
    QLabel *progress_;
};

} // namespace remat::studio
