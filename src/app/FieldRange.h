#pragma once
/// \file FieldRange.h
/// The number fields of the window's docks refuse what they cannot take, in the field. A value
/// outside the allowed values typed into a spin box (or one that is not a number, or not a whole
/// number where whole numbers are asked for) is refused when it would be applied (Enter, or
/// leaving the field): nothing is applied, never clamped to the nearest limit, never cut to the
/// characters the box would otherwise accept ("1e40" typed into a whole-number box was "140"),
/// and the field shows the value in use again, so that it always shows what runs. The field
/// gets a red frame and a tooltip that say why, which values are allowed and that the value in
/// use stays; the status bar says it too. The frame goes with the next text typed into the field
/// (or Escape, or another value the program sets), and the status line once the field holds an
/// acceptable text. Enter on a refused field keeps the keyboard in it, the value selected to be
/// typed over.
///
/// The allowed values of a field bound to a row of the parameter table (the property
/// kParamKey: dt, ε², G, θ, the launch parameters) are the row's, with the row's message
/// (paramTextProblem, sim/core/ParamTable.h); those of any other field are its spin box's own
/// range (steps per frame, point size, the diagnostics interval, the Add body tool's mass and
/// radius). One object per main window watches every spin box of its docks and toolbars, the
/// ones made later too (an application event filter,
/// as WheelFocus).

#include <QObject>
#include <QPointer>
#include <QString>

class QAbstractSpinBox;
class QMainWindow;
class QWidget;

namespace nbody::app {

class FieldRange : public QObject {
    Q_OBJECT
public:
    /// The dynamic property naming the parameter-table row a spin box edits ("dt").
    static constexpr const char* kParamKey = "nbodyParamKey";
    /// The dynamic property that is true while a field shows a refusal.
    static constexpr const char* kRefused = "nbodyRefused";

    explicit FieldRange(QMainWindow* window);

    /// Why `text` cannot be applied to `box` (the table row's message, or the field's label and
    /// its range), or "" when it can.
    static QString problem(const QAbstractSpinBox* box, const QString& text);
    /// The values `box` takes, as the tooltip names them ("1..1000", "(0, inf) time",
    /// "[1, 32] px", "off (0) or 1..1000000").
    static QString allowed(const QAbstractSpinBox* box);
    /// True while `w` (a spin box) shows a refusal.
    static bool isRefused(const QWidget* w);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    /// The spin box of `o` (itself, or the box of its line edit) when it is in one of the
    /// window's docks; else nullptr.
    QAbstractSpinBox* guarded(QObject* o) const;
    /// Lets the box's line edit hold any number as typed (its own validator refuses an exponent
    /// in a whole-number box, and digits past its maximum), and clears the refusal once the text
    /// is acceptable.
    void watch(QAbstractSpinBox* box);
    /// Checks the box's text: refuses it and puts the value in use back (true), or clears a
    /// refusal (false).
    bool refuseIfBad(QAbstractSpinBox* box);
    /// The box's text changed by typing: a refusal shown ends, and the refusal's status line goes
    /// once the text is acceptable.
    void onTyped(QAbstractSpinBox* box);
    /// Takes the last refusal's line off the status bar (if it is still there).
    void clearMessage();
    void refuse(QAbstractSpinBox* box, const QString& why);
    static void clear(QAbstractSpinBox* box);
    /// Clears the refusal after the events in hand when the text is then acceptable.
    static void recheckLater(QAbstractSpinBox* box);

    QMainWindow* m_window;
    QString m_message;                    ///< the last refusal's status line
    QPointer<QAbstractSpinBox> m_messageBox; ///< the field it is about
    bool m_restoring = false;             ///< putting the value in use back over a refused text
};

} // namespace nbody::app
