#include "KeyboardFocus.h"
#include "FieldRange.h"

#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QToolBar>
#include <QKeyEvent>
#include <QLineEdit>
#include <QMainWindow>
#include <QPlainTextEdit>
#include <QSpinBox>
#include <QTextEdit>
#include <QTimer>

namespace nbody::app {

namespace {

/// The spin box a focus widget belongs to (itself, or the spin box of its line edit).
QAbstractSpinBox* spinBoxOf(QObject* o)
{
    if (auto* s = qobject_cast<QAbstractSpinBox*>(o))
        return s;
    if (auto* e = qobject_cast<QLineEdit*>(o))
        return qobject_cast<QAbstractSpinBox*>(e->parentWidget());
    return nullptr;
}

/// The dock `w` is in, or nullptr.
const QDockWidget* dockOf(const QWidget* w)
{
    for (const QWidget* p = w; p; p = p->parentWidget())
        if (auto* d = qobject_cast<const QDockWidget*>(p))
            return d;
    return nullptr;
}

} // namespace

KeyboardFocus::KeyboardFocus(QMainWindow* window, QWidget* home) : QObject(window), m_window(window), m_home(home)
{
    qApp->installEventFilter(this);
}

bool KeyboardFocus::isTextField(const QWidget* w)
{
    if (auto* e = qobject_cast<const QLineEdit*>(w))
        return !e->isReadOnly();
    if (auto* s = qobject_cast<const QAbstractSpinBox*>(w))
        return !s->isReadOnly();
    if (auto* c = qobject_cast<const QComboBox*>(w))
        return c->isEditable();
    if (auto* t = qobject_cast<const QTextEdit*>(w))
        return !t->isReadOnly();
    if (auto* t = qobject_cast<const QPlainTextEdit*>(w))
        return !t->isReadOnly();
    return false;
}

bool KeyboardFocus::inWindow(const QWidget* w) const
{
    if (!w)
        return false;
    if (w->window() == m_window)
        return true;
    const QDockWidget* dock = dockOf(w);
    return dock && dock->parentWidget() == m_window; // a floating dock is a window of its own
}

bool KeyboardFocus::inDock(const QWidget* w) const
{
    if (const QDockWidget* dock = dockOf(w))
        return dock->parentWidget() == m_window;
    for (const QWidget* p = w; p; p = p->parentWidget()) // a toolbar's field (the Add body tool's mass)
        if (qobject_cast<const QToolBar*>(p))
            return p->parentWidget() == m_window;
    return false;
}

bool KeyboardFocus::eventFilter(QObject* watched, QEvent* event)
{
    const QEvent::Type type = event->type();
    if (type != QEvent::ShortcutOverride && type != QEvent::KeyPress)
        return false;
    auto* widget = qobject_cast<QWidget*>(watched);
    if (!isTextField(widget) || !inWindow(widget))
        return false;
    auto* key = static_cast<QKeyEvent*>(event);
    const Qt::KeyboardModifiers mods = key->modifiers() & ~(Qt::KeypadModifier | Qt::ShiftModifier);

    if (type == QEvent::ShortcutOverride) {
        // A key without Ctrl, Alt or Meta is the field's: accepting the override sends it to the
        // field as a key press instead of to the shortcut map. Ctrl+R and the like stay shortcuts.
        if (mods != Qt::NoModifier)
            return false;
        event->accept();
        return true;
    }

    // KeyPress in a dock's field: Enter applies the value (the field does that itself), Escape
    // puts the value in use back; then the view has the keyboard.
    const int k = key->key();
    if (!inDock(widget) || mods != Qt::NoModifier || (k != Qt::Key_Return && k != Qt::Key_Enter && k != Qt::Key_Escape))
        return false;
    if (k == Qt::Key_Escape) {
        // The shown value again (the typed text is dropped; no value changed, nothing emitted).
        QAbstractSpinBox* spin = spinBoxOf(watched);
        if (auto* d = qobject_cast<QDoubleSpinBox*>(spin))
            d->setValue(d->value());
        else if (auto* i = qobject_cast<QSpinBox*>(spin))
            i->setValue(i->value());
    }
    QTimer::singleShot(0, this, [this, field = QPointer<QWidget>(widget)] {
        if (field && FieldRange::isRefused(field))
            return; // Enter on a value the field refused: the keyboard stays there to correct it
        if (m_home)
            m_home->setFocus(Qt::ShortcutFocusReason);
    });
    return false; // the field sees the key too (Enter commits it)
}

} // namespace nbody::app
