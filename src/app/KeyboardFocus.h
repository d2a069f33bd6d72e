#pragma once
/// \file KeyboardFocus.h
/// How the main window's single-key shortcuts (Space start, P pause, N step, B, C, 1–4, …) and
/// its text and number fields share the keyboard. While a field has the keyboard — a line edit,
/// a spin box, an editable combo box, a text edit — every key without Ctrl, Alt or Meta (letters,
/// digits, Space, Shift+letter, F1 …) goes to the field and fires no shortcut, so typing "abc" or
/// "4 096" types, whatever letters the menus use; shortcuts with Ctrl, Alt or Meta (Ctrl+R,
/// Ctrl+S …) work everywhere. Single-key shortcuts work when the view, a button, a check box or a
/// list has the keyboard. In a dock's (or a toolbar's) field, Enter (which applies the value) and Escape (which
/// puts the value in use back in a spin box) hand the keyboard to the view, as in a drawing or
/// video program: the next key is a shortcut or moves the camera. A click in the view does too.

#include <QObject>
#include <QPointer>

class QMainWindow;
class QWidget;

namespace nbody::app {

class KeyboardFocus : public QObject {
    Q_OBJECT
public:
    /// Watches the keys typed into `window` and its docks; `home` (the view) gets the keyboard back.
    KeyboardFocus(QMainWindow* window, QWidget* home);

    /// True when `w` is a field that types the keys it gets: a line edit, a spin box, an
    /// editable combo box or a text edit, not read-only.
    static bool isTextField(const QWidget* w);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    /// `w` is in the window or in one of its docks, floating or not (not in a dialog).
    bool inWindow(const QWidget* w) const;
    /// `w` is in one of the window's docks or toolbars.
    bool inDock(const QWidget* w) const;

    QMainWindow* m_window;
    QPointer<QWidget> m_home;
};

} // namespace nbody::app
