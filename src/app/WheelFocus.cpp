#include "WheelFocus.h"

#include <QAbstractScrollArea>
#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QLineEdit>
#include <QMainWindow>
#include <QScrollBar>
#include <QWheelEvent>

#include <memory>

namespace nbody::app {

WheelFocus::WheelFocus(QMainWindow* window) : QObject(window), m_window(window)
{
    // The docks made so far (some were polished already, measuring their size hints); later
    // widgets are set up on QEvent::Polish.
    for (QDockWidget* dock : window->findChildren<QDockWidget*>())
        for (QWidget* w : dock->findChildren<QWidget*>())
            if (takesWheel(w))
                keepWheelFocus(w);
    qApp->installEventFilter(this);
}

bool WheelFocus::takesWheel(const QWidget* w)
{
    return qobject_cast<const QAbstractSpinBox*>(w) || qobject_cast<const QComboBox*>(w) ||
           (qobject_cast<const QAbstractSlider*>(w) && !qobject_cast<const QScrollBar*>(w));
}

void WheelFocus::keepWheelFocus(QWidget* w)
{
    if ((w->focusPolicy() & Qt::WheelFocus) == Qt::WheelFocus)
        w->setFocusPolicy(Qt::StrongFocus);
}

QWidget* WheelFocus::guarded(QObject* o) const
{
    auto* w = qobject_cast<QWidget*>(o);
    if (!w)
        return nullptr;
    if (!takesWheel(w)) {
        // The line edit of a spin box or an editable combo box.
        if (!qobject_cast<QLineEdit*>(w) || !takesWheel(w->parentWidget()))
            return nullptr;
        w = w->parentWidget();
    }
    for (QWidget* p = w; p; p = p->parentWidget())
        if (auto* dock = qobject_cast<QDockWidget*>(p))
            return dock->parentWidget() == m_window ? w : nullptr;
    return nullptr;
}

bool WheelFocus::eventFilter(QObject* watched, QEvent* event)
{
    const QEvent::Type type = event->type();
    if (type != QEvent::Wheel && type != QEvent::Polish)
        return false;
    QWidget* w = guarded(watched);
    if (!w)
        return false;
    if (type == QEvent::Polish) {
        keepWheelFocus(w);
        return false;
    }
    if (w->hasFocus() || w->isAncestorOf(QApplication::focusWidget()))
        return false; // the user is working in it: the wheel steps its value
    // Not the widget's: the enclosing scroll area (the dock's) scrolls, as it would over a label.
    for (QWidget* p = w->parentWidget(); p; p = p->parentWidget()) {
        if (auto* area = qobject_cast<QAbstractScrollArea*>(p)) {
            const std::unique_ptr<QEvent> copy(event->clone());
            QApplication::sendEvent(area->viewport(), copy.get());
            break;
        }
        if (p->isWindow())
            break;
    }
    event->accept(); // scrolled, or nothing to scroll: either way not a change of value
    return true;
}

} // namespace nbody::app
