#pragma once
/// \file ChartAxes.h
/// Value axes (Qt Charts) that show any range in a short, readable form: a shared power of ten
/// and, for a nearly constant series, an offset, named in the axis title ("|P| (×10⁻²⁰)",
/// "|L| − 38.536 (×10⁻⁵)"), and ticks at 1, 2 or 5 × 10^k of the scaled values ("0.5"). The
/// labels stay a few characters wide (never elided), and Qt Charts, which compares ranges with
/// qFuzzyCompare(1 + a, 1 + b) and so treats anything below about 1e-12 as empty, only ever sees
/// values of order one: a series is plotted through the scale (AxisScale::toPlot).

#include <QString>
#include <QStringList>

class QValueAxis;

namespace nbody::app {

/// How an axis shows its values: plotted = (value − offset) / 10^exponent.
struct AxisScale {
    double offset = 0;
    int exponent = 0;
    double toPlot(double v) const;
    double fromPlot(double p) const;
    /// "|P|" → "|P| (×10⁻²⁰)", "|L| − 38.536 (×10⁻⁵)", or `quantity` alone (no offset, exponent 0).
    QString title(const QString& quantity) const;
    /// "|L| − 38.536": the quantity and the offset (when there is one).
    QString withOffset(const QString& quantity) const;
    /// The lines of a vertical axis' title: the quantity, then the offset and the multiplier
    /// when there are ("|L|", "− 38.536", "×10⁻⁵").
    QStringList titleLines(const QString& quantity) const;
    /// The same as rich text for a vertical axis: the quantity, the offset and the multiplier
    /// each on a line of its own ("|L|<br>− 38.536<br>×10⁻⁵", "|P|<br>×10⁻²⁰").
    QString html(const QString& quantity) const;
    bool operator==(const AxisScale&) const = default;
};

/// The scale and ticks for values in [lo, hi] (padded when lo == hi): a shared exponent when the
/// magnitude is outside [0.01, 10⁴), an offset when the span is below 10⁻³ of the magnitude;
/// at most `ticks` ticks (3 or more), at 1, 2 or 5 × 10^k of the plotted values.
struct AxisLayout {
    AxisScale scale;
    double min = 0, max = 1; ///< plotted units, multiples of `step`
    double step = 0.25;
    int decimals = 2; ///< label digits after the point ("%.2f")
    int tickCount() const;
    QString labelFormat() const; ///< for QValueAxis::setLabelFormat
    /// The tick labels as the axis draws them (QString::asprintf of labelFormat()), bottom up.
    QStringList labels() const;
};
AxisLayout layoutAxis(double lo, double hi, int ticks = 6);
/// layoutAxis() for a vertical axis whose title has two or three lines (a shared exponent or an offset,
/// AxisScale::html): labels of one character ("0" … "3") get one decimal ("0.0" … "3.0"). Qt
/// Charts keeps room for "..." beside the title, so next to labels narrower than that the
/// title itself was cut, hiding the exponent ("|P|..." for the Solar System's |P| ×10⁻¹⁹).
AxisLayout layoutVerticalAxis(double lo, double hi, int ticks = 6);

/// Puts `layout` on `axis`: title (the quantity with the scale; on two or three lines, rich text, for
/// a vertical axis with `twoLines`), label format, fixed ticks and range.
void applyAxisLayout(QValueAxis* axis, const AxisLayout& layout, const QString& quantity, bool twoLines);

} // namespace nbody::app
