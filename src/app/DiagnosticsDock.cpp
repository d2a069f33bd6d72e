#include "DiagnosticsDock.h"
#include "DockScroll.h"

#include <QChart>
#include <QChartView>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontMetricsF>
#include <QGraphicsSimpleTextItem>
#include <QLegendMarker>
#include <QPen>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTimer>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <tuple>
#include <cmath>
#include <limits>

namespace nbody::app {

namespace {

double norm(const Double3& v)
{
    return std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
}

QLineSeries* makeSeries(const QString& name, QObject* parent)
{
    auto* s = new QLineSeries(parent);
    s->setName(name);
    return s;
}

/// A chart view whose size hint is the charts' preferred height, of which the dock's default
/// height is made, while its minimum is only what its plot needs (DiagnosticsDock::fitTitles).
class ChartView : public QChartView {
public:
    using QChartView::QChartView;
    QSize sizeHint() const override
    {
        return QSize(DiagnosticsDock::kMinChartWidth, DiagnosticsDock::kChartHeight).expandedTo(minimumSize());
    }
};

} // namespace

void DiagnosticsDock::Range::add(double v)
{
    if (!std::isfinite(v))
        return;
    if (empty) {
        lo = hi = v;
        empty = false;
    } else {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
}

DiagnosticsDock::DiagnosticsDock(QWidget* parent) : QDockWidget(tr("Diagnostics"), parent)
{
    qRegisterMetaType<nbody::Diagnostics>();
    qRegisterMetaType<QList<nbody::Diagnostics>>();
    setObjectName(QStringLiteral("diagnosticsDock"));

    m_kinetic = makeSeries(tr("K"), this);
    m_potential = makeSeries(tr("W"), this);
    m_total = makeSeries(tr("E = K + W"), this);
    m_energyChange = makeSeries(tr("(E − E₀)/|E₀|"), this);
    m_momentum = makeSeries(tr("|P|"), this);
    m_angularMomentum = makeSeries(tr("|L|"), this);
    m_virial = makeSeries(tr("2K/|W|"), this);

    auto* chartsBody = new QWidget;
    auto* chartsColumn = new QVBoxLayout(chartsBody);
    chartsColumn->setContentsMargins(0, 0, 0, 0);
    auto* charts = new QHBoxLayout;
    charts->setContentsMargins(0, 0, 0, 0);
    m_charts = {
        makeChart(tr("Energy"), tr("energy"), {m_kinetic, m_potential, m_total}),
        makeChart(tr("Relative energy change"), tr("ΔE/E₀"), {m_energyChange}),
        makeChart(tr("Momentum"), tr("|P|"), {m_momentum}, {m_angularMomentum}),
        makeChart(tr("Virial ratio"), tr("2K/|W|"), {m_virial}),
    };
    for (Chart& c : m_charts) {
        auto* view = new ChartView(c.chart);
        c.view = view;
        view->setRenderHint(QPainter::Antialiasing);
        view->setMinimumSize(kMinChartWidth, kMinChartHeight); // the height then as fitTitles finds it
        // A chart with an axis on each side (Momentum: |P| and |L|) gets half again the width
        // of one with a single vertical axis: Qt Charts squeezes the vertical axes to their
        // minimum ("1....") when their labels and titles take more than about 40 % of the
        // chart's width, which two-line titles and four-character labels did at 1280 px. The
        // chart with its legend beside the plot (Energy) gets a quarter more: its time labels
        // were elided ("0....") at 1280 px.
        const bool legendBeside = c.chart->legend()->isVisible();
        charts->addWidget(view, 4 + (c.y2 ? 2 : 0) + (legendBeside ? 1 : 0));
    }

    m_interval = new QSpinBox;
    m_interval->setObjectName(QStringLiteral("diagnosticsInterval"));
    m_interval->setRange(0, 1000000);
    m_interval->setSpecialValueText(tr("off"));
    m_interval->setPrefix(tr("every "));
    m_interval->setSuffix(tr(" steps"));
    m_interval->setToolTip(tr("Steps between evaluations. Each costs about one force evaluation in fp64 "
                              "(O(N²): on the GPU with a CUDA kernel, else on the CPU)."));
    connect(m_interval, &QSpinBox::valueChanged, this, &DiagnosticsDock::intervalEdited);

    m_latest = new QLabel(tr("no samples yet"));
    m_latest->setObjectName(QStringLiteral("latestSample"));
    m_latest->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_latest->setWordWrap(true); // on two lines in a narrow window, not a minimum width for the dock

    m_energyWarning = new QLabel;
    m_energyWarning->setObjectName(QStringLiteral("energyWarning"));
    m_energyWarning->setWordWrap(true);
    m_energyWarning->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_energyWarning->setStyleSheet(QStringLiteral("QLabel { color: #b71c1c; font-weight: bold; }"));
    m_energyWarning->hide();

    auto* exportButton = new QPushButton(tr("Export CSV…"));
    exportButton->setObjectName(QStringLiteral("exportCsv"));
    m_exportButton = exportButton; // enabled while there are samples (updateLatest)
    connect(exportButton, &QPushButton::clicked, this, &DiagnosticsDock::chooseExportFile);
    auto* clearButton = new QPushButton(tr("Clear"));
    clearButton->setToolTip(tr("Forget the samples so far (the run goes on)"));
    connect(clearButton, &QPushButton::clicked, this, &DiagnosticsDock::restart);

    auto* controls = new QHBoxLayout;
    auto* evaluate = new QLabel(tr("Evaluate"));
    evaluate->setBuddy(m_interval); // names the box in its messages
    controls->addWidget(evaluate);
    controls->addWidget(m_interval);
    controls->addWidget(m_latest, 1);
    controls->addWidget(clearButton);
    controls->addWidget(exportButton);
    updateLatest(); // no samples yet: Export CSV… disabled

    // The charts scroll (both ways) where the dock is smaller than they need: the dock can be
    // made as small as its controls on a laptop screen, and the charts' titles stay whole.
    // The energy warning above the charts, and scrolling with them: whole in a small dock.
    chartsColumn->addWidget(m_energyWarning);
    chartsColumn->addLayout(charts, 1);
    auto* chartsArea = new DockScrollArea; // the warning's wrapped lines get their height
    chartsArea->setObjectName(QStringLiteral("chartsArea"));
    chartsArea->setWidget(chartsBody);
    chartsArea->setWidgetResizable(true);
    chartsArea->setFrameShape(QFrame::NoFrame);
    chartsArea->setMinimumHeight(1); // not its hint (two scroll bars' worth): the dock's row of controls is the limit

    auto* layout = new QVBoxLayout;
    layout->addLayout(controls);
    layout->addWidget(chartsArea, 1);
    auto* body = new QWidget;
    body->setLayout(layout);
    setWidget(body);
}

DiagnosticsDock::Chart DiagnosticsDock::makeChart(const QString& title, const QString& yTitle,
                                                  const QList<QLineSeries*>& left, const QList<QLineSeries*>& right)
{
    Chart c;
    c.chart = new QChart;
    c.chart->setTitle(title);
    c.chart->legend()->setVisible(left.size() > 1);
    // Beside the plot, not under it: the charts share one height, and a legend below took
    // about 45 px of it from the plot, which then needed a taller dock for its vertical titles.
    c.chart->legend()->setAlignment(Qt::AlignRight);
    c.chart->setMargins(QMargins(2, 2, 2, 2));
    c.xTitle = tr("time");
    c.yTitle = yTitle;
    c.x = new QValueAxis;
    c.chart->addAxis(c.x, Qt::AlignBottom);
    c.y = new QValueAxis;
    c.chart->addAxis(c.y, Qt::AlignLeft);
    for (QLineSeries* s : left) {
        c.chart->addSeries(s);
        s->attachAxis(c.x);
        s->attachAxis(c.y);
    }
    if (!right.isEmpty()) {
        c.y2 = new QValueAxis;
        c.y2Title = right.front()->name();
        c.chart->addAxis(c.y2, Qt::AlignRight);
        for (QLineSeries* s : right) {
            c.chart->addSeries(s);
            s->attachAxis(c.x);
            s->attachAxis(c.y2);
        }
    }
    if (left.size() == 1 && right.size() == 1) {
        // One series per axis: the axes in the series' colours say which is which (no legend).
        for (auto [axis, series] : {std::pair{c.y, left.front()}, std::pair{c.y2, right.front()}}) {
            axis->setLabelsColor(series->color());
            axis->setTitleBrush(series->color());
        }
    }
    applyAxisLayout(c.x, c.xLayout, c.xTitle, false);
    applyAxisLayout(c.y, c.yLayout, c.yTitle, true);
    if (c.y2)
        applyAxisLayout(c.y2, c.y2Layout, c.y2Title, true);
    connect(c.chart, &QChart::plotAreaChanged, this, [this] {
        // Ticks as many as the plot's size holds: lay the axes out again once it settles.
        if (!m_relayoutQueued) {
            m_relayoutQueued = true;
            QTimer::singleShot(0, this, [this] {
                m_relayoutQueued = false;
                updateAxes();
            });
        }
    });
    return c;
}

std::pair<const DiagnosticsDock::Chart*, bool> DiagnosticsDock::chartOf(const QLineSeries* s) const
{
    auto* series = const_cast<QLineSeries*>(s); // Qt's accessors are not const
    for (const Chart& c : m_charts) {
        if (!series || !c.chart->series().contains(series))
            continue;
        const QList<QAbstractAxis*> axes = series->attachedAxes();
        return {&c, c.y2 && axes.contains(c.y2)};
    }
    return {nullptr, false};
}

QPointF DiagnosticsDock::dataPoint(const QString& name, int i) const
{
    const QLineSeries* s = series(name);
    const auto [c, right] = chartOf(s);
    if (!c || i < 0 || i >= s->count())
        return {};
    const QPointF p = s->at(i);
    return {c->xLayout.scale.fromPlot(p.x()), (right ? c->y2Layout : c->yLayout).scale.fromPlot(p.y())};
}

QValueAxis* DiagnosticsDock::axis(const QString& name, bool x) const
{
    const auto [c, right] = chartOf(series(name));
    if (!c)
        return nullptr;
    return x ? c->x : right ? c->y2 : c->y;
}

AxisLayout DiagnosticsDock::axisLayout(const QString& name, bool x) const
{
    const auto [c, right] = chartOf(series(name));
    if (!c)
        return {};
    return x ? c->xLayout : right ? c->y2Layout : c->yLayout;
}

QList<QLineSeries*> DiagnosticsDock::markerLines(const QString& name) const
{
    const auto [c, right] = chartOf(series(name));
    return c ? c->markerLines : QList<QLineSeries*>();
}

QList<QGraphicsSimpleTextItem*> DiagnosticsDock::markerLabels(const QString& name) const
{
    const auto [c, right] = chartOf(series(name));
    return c ? c->markerLabels : QList<QGraphicsSimpleTextItem*>();
}

QLineSeries* DiagnosticsDock::series(const QString& name) const
{
    static const QStringList names = {QStringLiteral("kinetic"), QStringLiteral("potential"),
                                      QStringLiteral("total"), QStringLiteral("energy change"),
                                      QStringLiteral("momentum"), QStringLiteral("angular momentum"),
                                      QStringLiteral("virial ratio")};
    const QList<QLineSeries*> all = {m_kinetic, m_potential, m_total, m_energyChange,
                                     m_momentum, m_angularMomentum, m_virial};
    const qsizetype i = names.indexOf(name);
    return i >= 0 ? all[i] : nullptr;
}

int DiagnosticsDock::interval() const
{
    return m_interval->value();
}

void DiagnosticsDock::setParams(const nbody::SimParams& params)
{
    const QSignalBlocker block(m_interval);
    m_interval->setValue(params.diagnosticsInterval);
}

void DiagnosticsDock::appendDiagnostics(const QList<nbody::Diagnostics>& samples)
{
    if (samples.isEmpty())
        return;
    const std::size_t from = m_recorder.size();
    for (const Diagnostics& d : samples)
        m_recorder.append(d);
    if (from == 0) // the first sample of a run: the reference of Δ|L|/|L₀|
        nameAngularSeries();
    const std::size_t drawn = (m_recorder.size() + std::size_t(m_stride) - 1) / std::size_t(m_stride);
    if (drawn > std::size_t(kMaxChartPoints)) {
        while ((m_recorder.size() + std::size_t(m_stride) - 1) / std::size_t(m_stride) > std::size_t(kMaxChartPoints))
            m_stride *= 2;
        rebuildCharts();
    } else {
        addPoints(from);
    }
    updateAxes();
    updateLatest();
}

void DiagnosticsDock::addPoints(std::size_t from)
{
    QList<QPointF> k, w, e, de, p, l, v;
    const auto& all = m_recorder.samples();
    const std::size_t stride = std::size_t(m_stride);
    // Plotted through each axis' scale.
    const AxisScale &x0 = m_charts[0].xLayout.scale, &x1 = m_charts[1].xLayout.scale,
                    &x2 = m_charts[2].xLayout.scale, &x3 = m_charts[3].xLayout.scale;
    const AxisScale &energy = m_charts[0].yLayout.scale, &change = m_charts[1].yLayout.scale,
                    &momentum = m_charts[2].yLayout.scale, &angular = m_charts[2].y2Layout.scale,
                    &virial = m_charts[3].yLayout.scale;
    const double l0 = angularReference();
    for (std::size_t i = (from + stride - 1) / stride * stride; i < all.size(); i += stride) {
        const Diagnostics& d = all[i];
        const double pn = norm(d.momentum);
        const double ln = l0 > 0 ? (norm(d.angularMomentum) - l0) / l0 : norm(d.angularMomentum);
        k.append({x0.toPlot(d.time), energy.toPlot(d.kinetic)});
        w.append({x0.toPlot(d.time), energy.toPlot(d.potential)});
        e.append({x0.toPlot(d.time), energy.toPlot(d.total)});
        de.append({x1.toPlot(d.time), change.toPlot(d.energyChange)});
        p.append({x2.toPlot(d.time), momentum.toPlot(pn)});
        l.append({x2.toPlot(d.time), angular.toPlot(ln)});
        v.append({x3.toPlot(d.time), virial.toPlot(d.virialRatio)});
        m_xRange.add(d.time);
        for (double y : {d.kinetic, d.potential, d.total})
            m_charts[0].yRange.add(y);
        m_charts[1].yRange.add(d.energyChange);
        m_charts[2].yRange.add(pn);
        m_charts[2].y2Range.add(ln);
        m_charts[3].yRange.add(d.virialRatio);
    }
    m_kinetic->append(k);
    m_potential->append(w);
    m_total->append(e);
    m_energyChange->append(de);
    m_momentum->append(p);
    m_angularMomentum->append(l);
    m_virial->append(v);
}

double DiagnosticsDock::angularReference() const
{
    if (m_recorder.size() == 0)
        return 0;
    const double l0 = norm(m_recorder.samples().front().angularMomentum);
    return std::isfinite(l0) && l0 > 0 ? l0 : 0;
}

void DiagnosticsDock::nameAngularSeries()
{
    const QString name = angularReference() > 0 ? tr("Δ|L|/|L₀|") : tr("|L|");
    m_angularMomentum->setName(name);
    m_charts[2].y2Title = name;
}

void DiagnosticsDock::rebuildCharts()
{
    m_xRange = {};
    for (Chart& c : m_charts)
        c.yRange = c.y2Range = {};
    for (QLineSeries* s : {m_kinetic, m_potential, m_total, m_energyChange, m_momentum, m_angularMomentum, m_virial})
        s->clear();
    for (const Marker& m : m_markers) // a marker after the last sample stays on the time axis
        m_xRange.add(m.time);
    addPoints(0);
}

void DiagnosticsDock::markRebase(double time, const QString& name)
{
    m_markers.append({time, name});
    const QColor colour(0x55, 0x55, 0x55);
    for (Chart& c : m_charts) {
        auto* line = new QLineSeries(this);
        line->setName(name);
        c.chart->addSeries(line); // the chart owns it
        line->attachAxis(c.x);
        line->attachAxis(c.y);
        QPen pen(colour, 1.0, Qt::DashLine); // after addSeries: the chart's theme sets a pen there
        line->setPen(pen);
        for (QLegendMarker* m : c.chart->legend()->markers(line))
            m->setVisible(false); // the label names it
        auto* label = new QGraphicsSimpleTextItem(name, c.chart);
        QFont font = label->font();
        font.setPointSizeF(0.85 * font.pointSizeF());
        label->setFont(font);
        label->setBrush(colour);
        label->setZValue(10);
        c.markerLines.append(line);
        c.markerLabels.append(label);
    }
    m_xRange.add(time);
    updateAxes(); // places the markers
    updateLatest();
}

void DiagnosticsDock::placeMarkers()
{
    for (Chart& c : m_charts) {
        const QRectF plot = c.chart->plotArea();
        const double ylo = c.y->min(), yhi = c.y->max();
        for (qsizetype i = 0; i < c.markerLines.size() && i < m_markers.size(); ++i) {
            const double x = c.xLayout.scale.toPlot(m_markers[i].time);
            QLineSeries* line = c.markerLines[i];
            line->replace(QList<QPointF>{{x, ylo}, {x, yhi}});
            QGraphicsSimpleTextItem* label = c.markerLabels[i];
            const bool inside = plot.height() > 0 && x >= c.x->min() && x <= c.x->max();
            label->setVisible(inside);
            if (!inside)
                continue;
            // Beside the line near the plot's top: right of it, or left where the name fits
            // there only or there is more room, elided to the room (the tooltip has it whole);
            // markers close in time on successive rows.
            const QPointF top = c.chart->mapToPosition(QPointF(x, yhi), line);
            const QString& name = m_markers[i].name;
            const QFontMetricsF metrics(label->font());
            const double right = plot.right() - top.x() - 3, left = top.x() - 3 - plot.left();
            const bool onRight = metrics.horizontalAdvance(name) <= right || right >= left;
            const QString shown = metrics.elidedText(name, Qt::ElideRight, std::max(0.0, onRight ? right : left));
            label->setText(shown);
            label->setToolTip(name);
            label->setVisible(!shown.isEmpty());
            const QRectF text = label->boundingRect();
            label->setPos(onRight ? top.x() + 3 : top.x() - 3 - text.width(),
                          plot.top() + 2 + double(i % 3) * text.height());
        }
    }
}

void DiagnosticsDock::clearMarkers()
{
    for (Chart& c : m_charts) {
        for (QLineSeries* line : c.markerLines) {
            c.chart->removeSeries(line);
            delete line;
        }
        qDeleteAll(c.markerLabels);
        c.markerLines.clear();
        c.markerLabels.clear();
    }
    m_markers.clear();
}

bool DiagnosticsDock::updateAxes()
{
    // At most one tick per ~1.6 label heights (vertical) or ~60 px (horizontal), 3 to 6.
    const auto maxTicks = [](const QValueAxis* axis, double length, bool vertical) {
        if (!(length > 0))
            return 5; // not laid out yet
        const double room = vertical ? 1.6 * QFontMetricsF(axis->labelsFont()).height() : 60.0;
        return std::clamp(int(length / room) + 1, 3, 6);
    };
    const auto layout = [](const Range& r, int ticks, bool vertical) {
        // Before the first sample, 0 … 1 with as many ticks as the axis has room for (the
        // Energy chart's time axis, beside its legend, held its five default labels touching).
        const double lo = r.empty ? 0.0 : r.lo, hi = r.empty ? 1.0 : r.hi;
        return vertical ? layoutVerticalAxis(lo, hi, ticks) : layoutAxis(lo, hi, ticks);
    };
    bool rescaled = false;
    for (Chart& c : m_charts) {
        const QRectF plot = c.chart->plotArea();
        const AxisLayout x = layout(m_xRange, maxTicks(c.x, plot.width(), false), false);
        const AxisLayout y = layout(c.yRange, maxTicks(c.y, plot.height(), true), true);
        const AxisLayout y2 = c.y2 ? layout(c.y2Range, maxTicks(c.y2, plot.height(), true), true) : AxisLayout{};
        rescaled |= !(x.scale == c.xLayout.scale) || !(y.scale == c.yLayout.scale) || !(y2.scale == c.y2Layout.scale);
        c.xLayout = x;
        c.yLayout = y;
        c.y2Layout = y2;
    }
    if (rescaled)
        rebuildCharts(); // the points again, through the new scales (the ranges come out the same)
    for (Chart& c : m_charts) {
        applyAxisLayout(c.x, c.xLayout, c.xTitle, false);
        applyAxisLayout(c.y, c.yLayout, c.yTitle, true);
        if (c.y2)
            applyAxisLayout(c.y2, c.y2Layout, c.y2Title, true);
    }
    placeMarkers();
    fitTitles();
    return rescaled;
}

void DiagnosticsDock::fitTitles()
{
    for (Chart& c : m_charts) {
        const QRectF plot = c.chart->plotArea();
        if (!c.view || !(plot.height() > 0))
            continue; // not laid out yet: plotAreaChanged calls again
        // The longest line of a vertical title, and the room Qt Charts keeps beside a title
        // for its "..." (a line as long as the axis is cut).
        double longest = 0;
        for (const auto& [axis, layout, quantity] : {std::tuple{c.y, &c.yLayout, &c.yTitle},
                                                     std::tuple{c.y2, &c.y2Layout, &c.y2Title}}) {
            if (!axis)
                continue;
            const QFontMetricsF metrics(axis->titleFont());
            for (const QString& line : layout->scale.titleLines(*quantity))
                longest = std::max(longest, metrics.horizontalAdvance(line) + metrics.horizontalAdvance(QStringLiteral("...")));
        }
        // The plot keeps room for the fewest ticks updateAxes lays out (three, 1.6 label heights
        // apart) besides its titles' lines.
        const double ticks = 3 * 1.6 * QFontMetricsF(c.y->labelsFont()).height();
        // Everything but the plot (the chart's title, the horizontal axis, margins) keeps its
        // height when the view grows.
        const double around = c.view->viewport()->height() - plot.height();
        const int wanted = int(std::ceil(std::max(longest, ticks) + around)) + c.view->height() -
                           c.view->viewport()->height();
        if (c.view->minimumHeight() != wanted)
            c.view->setMinimumHeight(wanted);
    }
}

void DiagnosticsDock::updateLatest()
{
    // The last time E₀ was taken again, and why.
    const QString rebased = m_markers.isEmpty() ? QString()
                                                : tr(" · E₀ re-based at t = %1 (%2)")
                                                      .arg(m_markers.back().time, 0, 'g', 6)
                                                      .arg(m_markers.back().name);
    // Nothing to export before the first sample: a file of the header alone said nothing.
    m_exportButton->setEnabled(!m_recorder.empty());
    m_exportButton->setToolTip(m_recorder.empty() ? tr("Nothing to export yet: no samples since the run started or "
                                                       "was cleared (Evaluate sets how often they are taken)")
                                                  : tr("Write every sample of this run as CSV"));
    if (m_recorder.empty()) {
        m_latest->setText(tr("no samples yet") + rebased);
        return;
    }
    const Diagnostics& d = m_recorder.samples().back();
    m_latest->setText((m_recorder.size() == 1 ? tr("%1 sample · step %2 · t = %3 · E = %4 · ΔE/E₀ = %5 · 2K/|W| = %6")
                                              : tr("%1 samples · step %2 · t = %3 · E = %4 · ΔE/E₀ = %5 · 2K/|W| = %6"))
                          .arg(m_recorder.size())
                          .arg(d.step)
                          .arg(d.time, 0, 'g', 6)
                          .arg(d.total, 0, 'g', 9)
                          .arg(d.energyChange, 0, 'e', 3)
                          .arg(d.virialRatio, 0, 'g', 5) +
                      // Merges (the collision system): ΔE/E₀ above is that of E + the energy lost.
                      (d.energyLost != 0 ? tr(" · lost to merges %1").arg(d.energyLost, 0, 'g', 6) : QString()) +
                      rebased);
}

void DiagnosticsDock::setEnergyWarning(const QString& text)
{
    m_energyWarning->setText(text);
    m_energyWarning->setToolTip(text);
    m_energyWarning->setVisible(!text.isEmpty());
}

QString DiagnosticsDock::energyWarning() const
{
    return m_energyWarning->text();
}

void DiagnosticsDock::restart()
{
    m_recorder.clear();
    clearMarkers();
    m_stride = 1;
    nameAngularSeries();
    rebuildCharts();
    updateAxes();
    updateLatest();
}

bool DiagnosticsDock::exportCsv(const QString& path)
{
    if (m_recorder.empty()) {
        auto* box = new QMessageBox(QMessageBox::Information, tr("Export CSV"),
                                    tr("There are no diagnostics to export yet: %1 was not written.").arg(path),
                                    QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
        return false;
    }
    try {
        m_recorder.writeCsv(QFile::encodeName(path).toStdString());
        return true;
    } catch (const std::exception& e) {
        auto* box = new QMessageBox(QMessageBox::Warning, tr("Export CSV"),
                                    tr("The diagnostics were not exported.\n\n%1").arg(QString::fromUtf8(e.what())),
                                    QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
        return false;
    }
}

void DiagnosticsDock::chooseExportFile()
{
    const QString dir = m_lastExportDir.isEmpty() ? QDir::currentPath() : m_lastExportDir;
    const QString path = QFileDialog::getSaveFileName(this, tr("Export diagnostics"),
                                                      QDir(dir).filePath(QStringLiteral("diagnostics.csv")),
                                                      tr("CSV files (*.csv);;All files (*)"));
    if (path.isEmpty())
        return;
    m_lastExportDir = QFileInfo(path).absolutePath();
    exportCsv(path);
}

} // namespace nbody::app
