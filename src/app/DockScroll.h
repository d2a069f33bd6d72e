#pragma once
/// \file DockScroll.h
/// Docks whose contents scroll instead of setting the window's minimum size: on a laptop screen
/// (1366 × 768) the right-hand column of tabbed docks would otherwise force the main window
/// taller than the screen.

#include <QDockWidget>
#include <QEvent>
#include <QFrame>
#include <QLayout>
#include <QScrollArea>

namespace nbody::app {

/// A scroll area that gives its widget the height the widget's layout needs at the viewport's
/// width (heightForWidth), so word-wrapped labels get all their lines: QScrollArea alone sizes a
/// resizable widget from its size hint, taken at another width, and cuts wrapped text short.
class DockScrollArea : public QScrollArea {
public:
    using QScrollArea::QScrollArea;

protected:
    void resizeEvent(QResizeEvent* event) override
    {
        QScrollArea::resizeEvent(event);
        fitHeight();
    }
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        if (watched == widget() && event->type() == QEvent::LayoutRequest)
            fitHeight(); // a label's text changed: the lines it needs may have too
        return QScrollArea::eventFilter(watched, event);
    }

private:
    void fitHeight()
    {
        QWidget* w = widget();
        if (!w)
            return;
        // Once no word-wrapped label is shown (the Diagnostics dock's warning hidden again), the
        // layout's own minimum holds: the height set for the lines would keep a scroll bar.
        QLayout* l = w->layout();
        const int h = l && l->hasHeightForWidth() ? l->totalHeightForWidth(viewport()->width()) : 0;
        if (h >= 0 && w->minimumHeight() != h)
            w->setMinimumHeight(h);
    }
};

/// Puts `body` into `dock` inside a frameless scroll area that resizes it (its own size hints
/// still lay it out when there is room; scroll bars appear only when there is not).
inline void setScrollableWidget(QDockWidget* dock, QWidget* body)
{
    auto* scroll = new DockScrollArea(dock);
    scroll->setObjectName(dock->objectName() + QStringLiteral("Scroll"));
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidgetResizable(true);
    scroll->setWidget(body);
    dock->setWidget(scroll);
}

} // namespace nbody::app
