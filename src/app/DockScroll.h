#pragma once
/// \file DockScroll.h
/// Docks whose contents scroll instead of setting the window's minimum size: on a laptop screen
/// (1366 × 768) the right-hand column of tabbed docks would otherwise force the main window
/// taller than the screen.

#include <QDockWidget>
#include <QFrame>
#include <QScrollArea>

namespace nbody::app {

/// Puts `body` into `dock` inside a frameless scroll area that resizes it (its own size hints
/// still lay it out when there is room; scroll bars appear only when there is not).
inline void setScrollableWidget(QDockWidget* dock, QWidget* body)
{
    auto* scroll = new QScrollArea(dock);
    scroll->setObjectName(dock->objectName() + QStringLiteral("Scroll"));
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidgetResizable(true);
    scroll->setWidget(body);
    dock->setWidget(scroll);
}

} // namespace nbody::app
