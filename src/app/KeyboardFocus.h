#pragma once
/// \file KeyboardFocus.h
/// The main window's single-key shortcuts (Space start, P pause, N step, F, C, …) after typing in
/// a dock's field. A number field (a spin box) takes the keys a number is
/// typed with — digits, sign, point, exponent — and leaves every other key to the window's
/// shortcuts, so Space or P works while the cursor is still in "Steps per frame". Enter (which
/// applies the value) and Escape (which puts the value in use back) hand the keyboard to the
/// view, as in a drawing or video program: the next key is a shortcut or moves the camera. Text
/// fields (a QLineEdit of their own) keep every printable key until Enter or Escape.

#include <QObject>
#include <QPointer>

class QMainWindow;
class QWidget;

namespace nbody::app {

class KeyboardFocus : public QObject {
    Q_OBJECT
public:
    /// Watches the keys typed into `window`'s docks; `home` (the view) gets the keyboard back.
    KeyboardFocus(QMainWindow* window, QWidget* home);

    /// True when `text` (one key's text) can be part of a number typed into a spin box.
    static bool isNumberInput(const QString& text);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    /// `w` is a field of one of the window's docks (not of a dialog or the view).
    bool inDock(const QWidget* w) const;

    QMainWindow* m_window;
    QPointer<QWidget> m_home;
};

} // namespace nbody::app
