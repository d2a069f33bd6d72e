#include "KeyboardFocus.h"

#include <QAbstractSpinBox>
#include <QApplication>
#include <QDockWidget>
#include <QKeyEvent>
#include <QLineEdit>
#include <QMainWindow>
#include <QSpinBox>
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

} // namespace

KeyboardFocus::KeyboardFocus(QMainWindow* window, QWidget* home) : QObject(window), m_window(window), m_home(home)
{
    qApp->installEventFilter(this);
}

bool KeyboardFocus::isNumberInput(const QString& text)
{
    if (text.size() != 1)
        return false;
    const QChar c = text.front();
    const QLocale locale;
    return c.isDigit() || c == QLatin1Char('.') || c == QLatin1Char(',') || c == QLatin1Char('+') ||
           c == QLatin1Char('-') || c == QLatin1Char('e') || c == QLatin1Char('E') ||
           text == locale.decimalPoint() || text == locale.groupSeparator() || text == locale.negativeSign();
}

bool KeyboardFocus::inDock(const QWidget* w) const
{
    if (!w || w->window() != m_window)
        return false;
    for (const QWidget* p = w; p; p = p->parentWidget())
        if (qobject_cast<const QDockWidget*>(p))
            return true;
    return false;
}

bool KeyboardFocus::eventFilter(QObject* watched, QEvent* event)
{
    const QEvent::Type type = event->type();
    if (type != QEvent::ShortcutOverride && type != QEvent::KeyPress)
        return false;
    auto* widget = qobject_cast<QWidget*>(watched);
    if (!widget || !inDock(widget))
        return false;
    auto* key = static_cast<QKeyEvent*>(event);
    QAbstractSpinBox* spin = spinBoxOf(watched);
    const bool field = spin || qobject_cast<QLineEdit*>(watched);
    if (!field)
        return false;
    const Qt::KeyboardModifiers mods = key->modifiers() & ~(Qt::KeypadModifier | Qt::ShiftModifier);

    if (type == QEvent::ShortcutOverride) {
        // A spin box would take every printable key (and refuse most of them); only those of a
        // number are its, the others are the window's shortcuts.
        if (spin && mods == Qt::NoModifier && !key->text().isEmpty() && key->text().front().isPrint() &&
            !isNumberInput(key->text()))
            return true; // not overridden: the shortcut map gets the key
        return false;
    }

    // KeyPress: Enter applies the value (the field does that itself), Escape puts the value in
    // use back; then the view has the keyboard.
    const int k = key->key();
    if (mods != Qt::NoModifier || (k != Qt::Key_Return && k != Qt::Key_Enter && k != Qt::Key_Escape))
        return false;
    if (k == Qt::Key_Escape && spin) {
        // The shown value again (the typed text is dropped; no value changed, nothing emitted).
        if (auto* d = qobject_cast<QDoubleSpinBox*>(spin))
            d->setValue(d->value());
        else if (auto* i = qobject_cast<QSpinBox*>(spin))
            i->setValue(i->value());
    }
    QTimer::singleShot(0, this, [this] {
        if (m_home)
            m_home->setFocus(Qt::ShortcutFocusReason);
    });
    return false; // the field sees the key too (Enter commits it)
}

} // namespace nbody::app
