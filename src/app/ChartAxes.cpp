#include "ChartAxes.h"
#include "sim/base/NiceNumber.h"

#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace nbody::app {

namespace {

/// "⁻²⁰" for -20.
QString superscript(int n)
{
    static const QString digits = QStringLiteral("⁰¹²³⁴⁵⁶⁷⁸⁹");
    QString out;
    for (const QChar c : QString::number(n))
        out += c == QLatin1Char('-') ? QStringLiteral("⁻") : QString(digits[c.digitValue()]);
    return out;
}


} // namespace

double AxisScale::toPlot(double v) const
{
    return (v - offset) / std::pow(10.0, exponent);
}

double AxisScale::fromPlot(double p) const
{
    return p * std::pow(10.0, exponent) + offset;
}

QString AxisScale::withOffset(const QString& quantity) const
{
    if (offset == 0)
        return quantity;
    // As many significant digits as the offset has down to 10^(exponent + 2), its last place.
    const int digits = std::clamp(int(std::floor(std::log10(std::abs(offset)))) - exponent - 1, 1, 15);
    return quantity + (offset > 0 ? QStringLiteral(" − ") : QStringLiteral(" + ")) +
           QString::number(std::abs(offset), 'g', digits);
}

QString AxisScale::title(const QString& quantity) const
{
    QString t = withOffset(quantity);
    if (exponent != 0)
        t += QStringLiteral(" (×10") + superscript(exponent) + QLatin1Char(')');
    return t;
}

QStringList AxisScale::titleLines(const QString& quantity) const
{
    QStringList lines{quantity};
    if (offset != 0)
        lines << withOffset(QString()).trimmed();
    if (exponent != 0)
        lines << QStringLiteral("×10") + superscript(exponent);
    return lines;
}

QString AxisScale::html(const QString& quantity) const
{
    // The quantity, the offset and the multiplier each on a line of its own: a vertical axis
    // title of a short chart then fits without eliding (on one line, "|P| − 0.00072345" was
    // cut to "|P| − 0.00072…", hiding the offset and the multiplier).
    QStringList lines = titleLines(quantity);
    for (QString& l : lines)
        l = l.toHtmlEscaped();
    return lines.join(QStringLiteral("<br>"));
}

int AxisLayout::tickCount() const
{
    return std::max(2, int(std::lround((max - min) / step)) + 1);
}

QString AxisLayout::labelFormat() const
{
    return QStringLiteral("%.") + QString::number(decimals) + QLatin1Char('f');
}

QStringList AxisLayout::labels() const
{
    // As Qt Charts places fixed ticks: min + i (max − min) / (count − 1).
    QStringList out;
    const int n = tickCount();
    const QByteArray format = labelFormat().toLatin1();
    for (int i = 0; i < n; ++i)
        out << QString::asprintf(format.constData(), min + double(i) * (max - min) / double(n - 1));
    return out;
}

AxisLayout layoutAxis(double lo, double hi, int ticks)
{
    AxisLayout a;
    if (!std::isfinite(lo) || !std::isfinite(hi) || lo > hi)
        return a; // 0 … 1
    if (hi == lo) { // a single value: ±5 % of itself (±1 at 0)
        const double m = lo != 0 ? 0.05 * std::abs(lo) : 1.0;
        lo -= m;
        hi += m;
    }
    const double magnitude = std::max(std::abs(lo), std::abs(hi));
    // Below ~1e-12 of the magnitude the values are rounding noise of doubles: show that span.
    if (hi - lo < 1e-12 * magnitude) {
        const double mid = 0.5 * (lo + hi), half = 0.5e-12 * magnitude;
        lo = mid - half;
        hi = mid + half;
    }
    const double span = hi - lo;
    if (span < 1e-3 * magnitude) {
        // Nearly constant (|L| = 38.5363 ± 1e-4): an offset, a multiple of 10^(k+2) near the
        // middle, and the exponent of the tick step 10^k, so the labels are small integers.
        const double rawStep = niceNumber(niceNumber(span, false) / (ticks - 1), true);
        a.scale.exponent = int(std::floor(std::log10(rawStep) + 1e-9));
        const double unit = std::pow(10.0, a.scale.exponent + 2);
        a.scale.offset = std::round(0.5 * (lo + hi) / unit) * unit;
        // (the tick step may grow below: the labels stay small integers)
    } else if (magnitude < 1e-2 || magnitude >= 1e4) {
        a.scale.exponent = int(std::floor(std::log10(magnitude)));
    }
    const double plo = a.scale.toPlot(lo), phi = a.scale.toPlot(hi);
    a.step = niceNumber(niceNumber(phi - plo, false) / (ticks - 1), true);
    for (;;) { // at most `ticks` ticks: the next nice step (1, 2, 5 × 10^k) while there are more
        a.min = std::floor(plo / a.step + 1e-9) * a.step;
        a.max = std::ceil(phi / a.step - 1e-9) * a.step;
        if (a.max <= a.min)
            a.max = a.min + a.step;
        if (a.tickCount() <= std::max(ticks, 3))
            break;
        a.step = niceNumber(a.step * 1.5, true);
    }
    a.decimals = std::max(0, -int(std::floor(std::log10(a.step) + 1e-9)));
    return a;
}

AxisLayout layoutVerticalAxis(double lo, double hi, int ticks)
{
    AxisLayout a = layoutAxis(lo, hi, ticks);
    if (a.scale.exponent == 0 && a.scale.offset == 0)
        return a; // a one-line title: nothing to cut
    qsizetype widest = 0;
    for (const QString& l : a.labels())
        widest = std::max(widest, l.size());
    if (widest < 2)
        ++a.decimals;
    return a;
}

void applyAxisLayout(QValueAxis* axis, const AxisLayout& l, const QString& quantity, bool twoLines)
{
    axis->setTitleText(twoLines ? l.scale.html(quantity) : l.scale.title(quantity));
    axis->setLabelFormat(l.labelFormat());
    axis->setTickType(QValueAxis::TicksFixed);
    axis->setTickCount(l.tickCount());
    axis->setRange(l.min, l.max);
}

} // namespace nbody::app
