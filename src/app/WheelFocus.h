#pragma once
/// \file WheelFocus.h
/// The mouse wheel over a dock scrolls the dock. Spin boxes, combo boxes and sliders in the
/// window's docks take the wheel only while they have the keyboard (a click or Tab gives it
/// them): they get Qt::StrongFocus instead of Qt::WheelFocus, so the wheel does not give them
/// focus either, and a wheel event that reaches one without focus goes to the dock's scroll area
/// instead, so scrolling past ε² leaves ε² as it was. One object per main window watches every
/// dock, the ones made later too (an application event filter: a widget is set up when it is
/// first polished).

#include <QObject>

class QMainWindow;
class QWidget;

namespace nbody::app {

class WheelFocus : public QObject {
    Q_OBJECT
public:
    /// Sets up the widgets of `window`'s docks, now and as they appear.
    explicit WheelFocus(QMainWindow* window);

    /// True when `w` is a widget whose value the wheel changes: a spin box, a combo box or a
    /// slider (QAbstractSlider: sliders, dials; not scroll bars, which are there to scroll).
    static bool takesWheel(const QWidget* w);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    /// The widget of `o` that takes the wheel (itself, or the spin box or combo box of its line
    /// edit) when that is in one of the window's docks; else nullptr.
    QWidget* guarded(QObject* o) const;
    /// Gives `w` Qt::StrongFocus where its policy would let the wheel focus it.
    static void keepWheelFocus(QWidget* w);

    QMainWindow* m_window;
};

} // namespace nbody::app
