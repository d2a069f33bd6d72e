#pragma once
/// \file MessageBar.h
/// The main window's status bar: a message longer than the room left beside the permanent
/// readouts is drawn elided ("…" at the end) instead of cut, and its tooltip has it whole.

#include <QStatusBar>

namespace nbody::app {

/// QStatusBar draws its message clipped to the room left of the first permanent widget, so a
/// long one lost its end at 1366 px ("…with block time s"). This bar draws the message elided
/// to that room and shows the whole text, wrapped, as the tooltip of the message's area.
class MessageBar : public QStatusBar {
    Q_OBJECT
public:
    explicit MessageBar(QWidget* parent = nullptr);

    /// The room the message has: from the left margin to the first visible permanent widget
    /// (QStatusBar's own rule), in the bar's coordinates.
    QRect messageArea() const;
    /// The message as drawn: currentMessage(), elided to messageArea()'s width.
    QString shownMessage() const;
    /// True while the message is too long for its room (drawn elided, whole in the tooltip).
    bool messageElided() const;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;
};

} // namespace nbody::app
