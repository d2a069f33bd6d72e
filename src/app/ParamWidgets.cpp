#include "ParamWidgets.h"
#include "FieldRange.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSpinBox>

#include <climits>
#include <cmath>

namespace nbody::app {

namespace {

QString qstr(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

/// "Opening angle theta:" from "opening angle theta".
QString formLabel(const nbody::ParamInfo& row)
{
    QString l = qstr(row.label);
    if (!l.isEmpty())
        l[0] = l[0].toUpper();
    return l + QLatin1Char(':');
}

int clampInt(double v) { return int(std::max<double>(INT_MIN, std::min<double>(INT_MAX, v))); }

} // namespace

ParamForm::ParamForm(std::function<bool(const nbody::ParamInfo&)> wanted, QWidget* parent)
    : QWidget(parent), m_form(new QFormLayout(this))
{
    m_form->setContentsMargins(0, 0, 0, 0);
    for (const nbody::ParamInfo& row : nbody::paramTable()) {
        if (!wanted(row))
            continue;
        QWidget* e = makeEditor(row);
        const QString key = qstr(row.key);
        e->setObjectName(key);
        e->setProperty(FieldRange::kParamKey, key); // a number box refuses what the row refuses
        QString tip = qstr(row.doc);
        if (row.type == nbody::ParamType::Real || row.type == nbody::ParamType::Integer)
            tip += QStringLiteral(" (%1%2)").arg(QString::fromStdString(nbody::paramRangeText(row)),
                                                 row.unit.empty() ? QString() : QStringLiteral(", ") + qstr(row.unit));
        e->setToolTip(tip);
        m_form->addRow(formLabel(row), e);
        m_editors[key] = e;
        m_keys << key;
    }
}

QWidget* ParamForm::makeEditor(const nbody::ParamInfo& row)
{
    const QString key = qstr(row.key);
    switch (row.type) {
    case nbody::ParamType::Integer: {
        auto* s = new QSpinBox(this);
        // 0 means auto: the box starts at 0; the row refuses 1..min-1, the kernel the device's limits.
        s->setRange(row.zeroMeansAuto ? 0 : clampInt(row.min), std::isfinite(row.max) ? clampInt(row.max) : 1 << 20);
        if (row.zeroMeansAuto)
            s->setSpecialValueText(tr("auto"));
        s->setKeyboardTracking(false); // apply on Enter / focus loss / arrows, not per keystroke
        connect(s, &QSpinBox::valueChanged, this, [this, key](int v) { emit edited(key, QString::number(v)); });
        return s;
    }
    case nbody::ParamType::Real: {
        auto* s = new QDoubleSpinBox(this);
        s->setDecimals(row.decimals);
        const double lo = std::isfinite(row.min) ? row.min + (row.minExclusive ? std::pow(10.0, -row.decimals) : 0.0) : -1e9;
        s->setRange(lo, std::isfinite(row.max) ? row.max : 1e9);
        s->setSingleStep(row.step);
        s->setKeyboardTracking(false);
        connect(s, &QDoubleSpinBox::valueChanged, this, [this, key](double v) {
            emit edited(key, QString::number(v, 'g', 9));
        });
        return s;
    }
    case nbody::ParamType::Boolean: {
        auto* c = new QCheckBox(this);
        connect(c, &QCheckBox::toggled, this,
                [this, key](bool on) { emit edited(key, on ? QStringLiteral("true") : QStringLiteral("false")); });
        return c;
    }
    case nbody::ParamType::Text:
        if (row.choices) { // a closed set of values: a list to pick from
            auto* c = new QComboBox(this);
            for (const std::string& v : row.choices())
                c->addItem(QString::fromStdString(v));
            connect(c, &QComboBox::currentTextChanged, this, [this, key](const QString& v) { emit edited(key, v); });
            return c;
        }
        break;
    }
    auto* l = new QLineEdit(this);
    connect(l, &QLineEdit::editingFinished, this, [this, key, l] { emit edited(key, l->text()); });
    return l;
}

void ParamForm::setParams(const nbody::SimParams& p)
{
    for (const nbody::ParamInfo& row : nbody::paramTable()) {
        const auto it = m_editors.find(qstr(row.key));
        if (it == m_editors.end())
            continue;
        const QSignalBlocker block(it->second);
        const QString text = QString::fromStdString(row.get(p));
        if (auto* s = qobject_cast<QSpinBox*>(it->second))
            s->setValue(text.toInt());
        else if (auto* d = qobject_cast<QDoubleSpinBox*>(it->second))
            d->setValue(text.toDouble());
        else if (auto* check = qobject_cast<QCheckBox*>(it->second))
            check->setChecked(text == QLatin1String("true"));
        else if (auto* combo = qobject_cast<QComboBox*>(it->second))
            combo->setCurrentText(text);
        else if (auto* l = qobject_cast<QLineEdit*>(it->second))
            l->setText(text);
    }
}

QWidget* ParamForm::editor(const QString& key) const
{
    const auto it = m_editors.find(key);
    return it == m_editors.end() ? nullptr : it->second;
}

QStringList ParamForm::keys() const { return m_keys; }

} // namespace nbody::app
