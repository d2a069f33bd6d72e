#include "FieldRange.h"

#include "sim/core/ParamTable.h"

#include <QAbstractSpinBox>
#include <QApplication>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMainWindow>
#include <QPointer>
#include <QRegularExpression>
#include <QSpinBox>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>
#include <QValidator>

#include <cmath>

namespace nbody::app {

namespace {

constexpr const char* kWatched = "nbodyFieldRangeWatched";
constexpr const char* kOwnToolTip = "nbodyOwnToolTip";
constexpr const char* kOwnStyleSheet = "nbodyOwnStyleSheet";
constexpr const char* kShownText = "nbodyShownText"; ///< the value in use, put back over a refused text

QString qstr(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

const nbody::ParamInfo* rowOf(const QAbstractSpinBox* box)
{
    const QVariant key = box->property(FieldRange::kParamKey);
    return key.isValid() ? nbody::findParam(key.toString().toStdString()) : nullptr;
}

QString prefixOf(const QAbstractSpinBox* box)
{
    if (auto* s = qobject_cast<const QSpinBox*>(box))
        return s->prefix();
    if (auto* d = qobject_cast<const QDoubleSpinBox*>(box))
        return d->prefix();
    return {};
}

QString suffixOf(const QAbstractSpinBox* box)
{
    if (auto* s = qobject_cast<const QSpinBox*>(box))
        return s->suffix();
    if (auto* d = qobject_cast<const QDoubleSpinBox*>(box))
        return d->suffix();
    return {};
}

/// The number in a box's text, without its prefix and suffix ("1e40" of "every 1e40 steps").
QString numberPart(const QAbstractSpinBox* box, QString text)
{
    const QString prefix = prefixOf(box), suffix = suffixOf(box);
    if (!prefix.isEmpty() && text.startsWith(prefix))
        text.remove(0, prefix.size());
    if (!suffix.isEmpty() && text.endsWith(suffix))
        text.chop(suffix.size());
    return text.trimmed();
}

/// Text on its way to a number: a sign, digits, a decimal point, an exponent, any of them
/// unfinished ("-", "1e", "2.5e-").
bool numberShaped(const QString& number)
{
    static const QRegularExpression shape(QStringLiteral(R"(^[+\-\x{2212}]?\d*([.,]\d*)?([eE][+\-]?\d*)?$)"));
    return shape.match(number).hasMatch();
}

/// The number as the parameter table reads it (C locale: "0.5" for the German "0,5"); false
/// when it is not one.
bool parseNumber(const QString& number, double& out)
{
    QString n = number;
    n.replace(QChar(0x2212), QLatin1Char('-'));
    bool ok = false;
    out = QLocale::c().toDouble(n, &ok);
    if (!ok)
        out = QLocale().toDouble(n, &ok);
    return ok;
}

/// "Steps per frame" from the form's label "Steps per frame:" (the label whose buddy the box
/// is), else the box's accessible name.
QString labelOf(const QAbstractSpinBox* box)
{
    QWidget* scope = box->window();
    for (QWidget* p = box->parentWidget(); p; p = p->parentWidget())
        if (qobject_cast<QDockWidget*>(p)) {
            scope = p;
            break;
        }
    for (const QLabel* l : scope->findChildren<QLabel*>())
        if (l->buddy() == box) {
            QString t = l->text();
            t.remove(QLatin1Char('&'));
            if (t.endsWith(QLatin1Char(':')))
                t.chop(1);
            return t.trimmed();
        }
    return box->accessibleName().isEmpty() ? FieldRange::tr("This field") : box->accessibleName();
}

QString valueText(const QAbstractSpinBox* box)
{
    if (auto* s = qobject_cast<const QSpinBox*>(box))
        return !s->specialValueText().isEmpty() && s->value() == s->minimum() ? s->specialValueText()
                                                                              : QLocale().toString(s->value());
    if (auto* d = qobject_cast<const QDoubleSpinBox*>(box))
        return !d->specialValueText().isEmpty() && d->value() == d->minimum() ? d->specialValueText()
                                                                              : QLocale().toString(d->value(), 'g', 7);
    return box->text();
}

/// The line edit's validator: the box's own, except that any text shaped like a number is
/// Intermediate instead of Invalid, so it stays in the field as typed for FieldRange to judge.
class NumberTextValidator : public QValidator {
public:
    NumberTextValidator(QAbstractSpinBox* box, const QValidator* own)
        : QValidator(box), m_box(box), m_own(const_cast<QValidator*>(own))
    {
    }

    State validate(QString& input, int& pos) const override
    {
        const State s = m_own ? m_own->validate(input, pos) : Invalid;
        if (s != Invalid || !m_box)
            return s;
        return numberShaped(numberPart(m_box, input)) ? Intermediate : Invalid;
    }
    void fixup(QString& input) const override
    {
        if (m_own)
            m_own->fixup(input);
    }

private:
    QPointer<QAbstractSpinBox> m_box;
    QPointer<QValidator> m_own;
};

} // namespace

FieldRange::FieldRange(QMainWindow* window) : QObject(window), m_window(window)
{
    for (QDockWidget* dock : window->findChildren<QDockWidget*>())
        for (QAbstractSpinBox* box : dock->findChildren<QAbstractSpinBox*>())
            watch(box);
    for (QToolBar* bar : window->findChildren<QToolBar*>()) // the Add body tool's options
        for (QAbstractSpinBox* box : bar->findChildren<QAbstractSpinBox*>())
            watch(box);
    qApp->installEventFilter(this); // later boxes on QEvent::Polish
}

QString FieldRange::allowed(const QAbstractSpinBox* box)
{
    if (const nbody::ParamInfo* row = rowOf(box)) {
        const QString range = QString::fromStdString(nbody::paramRangeText(*row));
        return row->unit.empty() ? range : range + QLatin1Char(' ') + qstr(row->unit);
    }
    const QString unit = suffixOf(box).trimmed();
    QString range;
    QString special;
    if (auto* s = qobject_cast<const QSpinBox*>(box)) {
        special = s->specialValueText();
        const int lo = special.isEmpty() ? s->minimum() : s->minimum() + 1;
        range = QStringLiteral("%1..%2").arg(lo).arg(s->maximum());
        if (!special.isEmpty())
            special = tr("%1 (%2)").arg(special).arg(s->minimum());
    } else if (auto* d = qobject_cast<const QDoubleSpinBox*>(box)) {
        special = d->specialValueText();
        range = QStringLiteral("[%1, %2]").arg(QString::number(d->minimum(), 'g', 6), QString::number(d->maximum(), 'g', 6));
        if (!special.isEmpty())
            special = tr("%1 (%2)").arg(special, QString::number(d->minimum(), 'g', 6));
    }
    if (!unit.isEmpty())
        range += QLatin1Char(' ') + unit;
    return special.isEmpty() ? range : tr("%1 or %2").arg(special, range);
}

QString FieldRange::problem(const QAbstractSpinBox* box, const QString& text)
{
    const QString number = numberPart(box, text);
    const QString special = qobject_cast<const QSpinBox*>(box)         ? qobject_cast<const QSpinBox*>(box)->specialValueText()
                            : qobject_cast<const QDoubleSpinBox*>(box) ? qobject_cast<const QDoubleSpinBox*>(box)->specialValueText()
                                                                        : QString();
    if (!special.isEmpty() && (text == special || number == special))
        return {};
    double v = 0;
    const bool isNumber = parseNumber(number, v);
    if (const nbody::ParamInfo* row = rowOf(box)) {
        // The table's own reading and message ("time step dt must be positive and finite (got 0)").
        const std::string asText = isNumber && QLocale::c().toDouble(number) != v ? QString::number(v, 'g', 17).toStdString()
                                                                                   : number.toStdString();
        if (const std::string why = nbody::paramTextProblem(*row, asText); !why.empty())
            return QString::fromStdString(why);
    }
    const QString label = labelOf(box);
    if (!isNumber)
        return tr("%1: '%2' is not a number").arg(label, number);
    if (qobject_cast<const QSpinBox*>(box) && v != std::floor(v))
        return tr("%1: %2 is not a whole number").arg(label, number);
    QString copy = text;
    int pos = 0;
    if (box->validate(copy, pos) != QValidator::Acceptable)
        return tr("%1 = %2 is outside %3").arg(label, number, allowed(box));
    return {};
}

void FieldRange::recheckLater(QAbstractSpinBox* box)
{
    QTimer::singleShot(0, box, [box] {
        if (isRefused(box) && box->text() != box->property(kShownText).toString() && problem(box, box->text()).isEmpty())
            clear(box);
    });
}

bool FieldRange::isRefused(const QWidget* w)
{
    return w && w->property(kRefused).toBool();
}

QAbstractSpinBox* FieldRange::guarded(QObject* o) const
{
    auto* w = qobject_cast<QWidget*>(o);
    if (!w)
        return nullptr;
    auto* box = qobject_cast<QAbstractSpinBox*>(w);
    if (!box && qobject_cast<QLineEdit*>(w))
        box = qobject_cast<QAbstractSpinBox*>(w->parentWidget());
    if (!box || !(qobject_cast<QSpinBox*>(box) || qobject_cast<QDoubleSpinBox*>(box)))
        return nullptr;
    for (QWidget* p = box->parentWidget(); p; p = p->parentWidget())
        if (qobject_cast<QDockWidget*>(p) || qobject_cast<QToolBar*>(p))
            return p->parentWidget() == m_window ? box : nullptr;
    return nullptr;
}

void FieldRange::watch(QAbstractSpinBox* box)
{
    if (box->property(kWatched).toBool() || !(qobject_cast<QSpinBox*>(box) || qobject_cast<QDoubleSpinBox*>(box)))
        return;
    auto* edit = box->findChild<QLineEdit*>();
    if (!edit)
        return;
    box->setProperty(kWatched, true);
    // A typed value is applied on Enter or when the field is left, after this check, not at
    // every keystroke: "500" typed into a box of 1..32 applied 5 on the way.
    box->setKeyboardTracking(false);
    edit->setValidator(new NumberTextValidator(box, edit->validator()));
    connect(edit, &QLineEdit::textChanged, this, [this, box = QPointer<QAbstractSpinBox>(box)] {
        if (box)
            onTyped(box);
    });
}

void FieldRange::onTyped(QAbstractSpinBox* box)
{
    if (m_restoring)
        return;
    // The value in use put back shows the refusal; a text typed after it ends it.
    if (isRefused(box) && box->text() != box->property(kShownText).toString())
        clear(box);
    if (m_messageBox == box && problem(box, box->text()).isEmpty())
        clearMessage(); // corrected: the refusal's line is no longer true
}

bool FieldRange::refuseIfBad(QAbstractSpinBox* box)
{
    const QString why = problem(box, box->text());
    if (why.isEmpty()) {
        if (box->text() != box->property(kShownText).toString())
            clear(box); // a refusal shown over the value in use stays until the next text
        return false;
    }
    refuse(box, why);
    // The field shows what runs: the value in use over the refused text (as Escape does; no
    // value changes, nothing is emitted). The frame, the tooltip and the status bar say why.
    m_restoring = true;
    if (auto* d = qobject_cast<QDoubleSpinBox*>(box))
        d->setValue(d->value());
    else if (auto* i = qobject_cast<QSpinBox*>(box))
        i->setValue(i->value());
    m_restoring = false;
    box->setProperty(kShownText, box->text());
    return true;
}

void FieldRange::clearMessage()
{
    if (m_window->statusBar() && m_window->statusBar()->currentMessage() == m_message)
        m_window->statusBar()->clearMessage();
    m_message.clear();
    m_messageBox = nullptr;
}

void FieldRange::refuse(QAbstractSpinBox* box, const QString& why)
{
    if (!isRefused(box)) {
        box->setProperty(kOwnToolTip, box->toolTip());
        box->setProperty(kOwnStyleSheet, box->styleSheet());
    }
    box->setProperty(kRefused, true);
    // A reason that already names the allowed values ("Point size = 500 is outside [1, 32] px")
    // is not followed by them again.
    const QString range = allowed(box);
    const bool named = why.contains(range);
    const QString inUse = valueText(box);
    const QString tip = named ? tr("%1.\nNothing was applied: the field shows the value in use, %2.").arg(why, inUse)
                              : tr("%1.\nAllowed: %2. Nothing was applied: the field shows the value in use, %3.")
                                    .arg(why, range, inUse);
    const QString own = box->property(kOwnToolTip).toString();
    box->setToolTip(own.isEmpty() ? tip : tip + QStringLiteral("\n\n") + own);
    box->setStyleSheet(box->property(kOwnStyleSheet).toString() +
                       QStringLiteral("QAbstractSpinBox { border: 2px solid #d32f2f; border-radius: 2px; }"));
    if (m_window->statusBar()) {
        m_message = named ? tr("%1; nothing was applied, %2 is still in use").arg(why, inUse)
                          : tr("%1 (allowed: %2); nothing was applied, %3 is still in use").arg(why, range, inUse);
        m_messageBox = box;
        m_window->statusBar()->showMessage(m_message, 15000);
    }
}

void FieldRange::clear(QAbstractSpinBox* box)
{
    if (!isRefused(box))
        return;
    box->setProperty(kRefused, false);
    box->setToolTip(box->property(kOwnToolTip).toString());
    box->setStyleSheet(box->property(kOwnStyleSheet).toString());
}

bool FieldRange::eventFilter(QObject* watched, QEvent* event)
{
    const QEvent::Type type = event->type();
    if (type == QEvent::Paint) {
        // A refused box's text was replaced (a value set by the program): the box updates its
        // line edit with the edit's signals blocked, but the edit repaints. Checked once the
        // paint is done.
        auto* edit = qobject_cast<QLineEdit*>(watched);
        auto* box = edit ? qobject_cast<QAbstractSpinBox*>(edit->parentWidget()) : nullptr;
        if (box && isRefused(box))
            recheckLater(box);
        return false;
    }
    if (type != QEvent::Polish && type != QEvent::KeyPress && type != QEvent::FocusOut)
        return false;
    QAbstractSpinBox* box = guarded(watched);
    if (!box)
        return false;
    if (type == QEvent::Polish) {
        watch(box);
        return false;
    }
    if (watched != box || box->isReadOnly() || !box->isEnabled())
        return false; // the line edit's own events; a box nobody types into
    if (type == QEvent::KeyPress) {
        const int key = static_cast<QKeyEvent*>(event)->key();
        if (key == Qt::Key_Escape) { // the value in use back (KeyboardFocus): the refusal goes with the text
            clear(box);
            if (m_messageBox == box)
                clearMessage();
        }
        if ((key != Qt::Key_Return && key != Qt::Key_Enter) || !refuseIfBad(box))
            return false;
        // Nothing to interpret (the value in use is back); the keyboard stays in the field
        // (KeyboardFocus), its text selected to be typed over.
        if (auto* edit = box->findChild<QLineEdit*>())
            edit->selectAll();
        event->accept();
        return true;
    }
    // Leaving the field: a refused text is replaced by the value in use before the box reads
    // it (it would take the nearest limit); then the box leaves as usual, nothing changed.
    refuseIfBad(box);
    return false;
}

} // namespace nbody::app
