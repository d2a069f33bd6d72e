#include "DiagnosticsDock.h"

#include <QChart>
#include <QChartView>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
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

/// Axis limits for values in [lo, hi] (rounded by applyNiceNumbers afterwards); a single value
/// gets ±5 % of itself (±1 at 0).
std::pair<double, double> padded(double lo, double hi)
{
    if (hi > lo)
        return {lo, hi};
    const double m = lo != 0 ? 0.05 * std::abs(lo) : 1.0;
    return {lo - m, hi + m};
}

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

    auto* charts = new QHBoxLayout;
    m_charts = {
        makeChart(tr("Energy"), tr("energy"), {m_kinetic, m_potential, m_total}),
        makeChart(tr("Relative energy change"), tr("(E − E₀)/|E₀|"), {m_energyChange}),
        makeChart(tr("Momentum"), tr("|P|"), {m_momentum}, {m_angularMomentum}),
        makeChart(tr("Virial ratio"), tr("2K/|W|"), {m_virial}),
    };
    for (const Chart& c : m_charts) {
        auto* view = new QChartView(c.chart);
        view->setRenderHint(QPainter::Antialiasing);
        view->setMinimumSize(260, 200);
        charts->addWidget(view);
    }

    m_interval = new QSpinBox;
    m_interval->setRange(0, 1000000);
    m_interval->setSpecialValueText(tr("off"));
    m_interval->setPrefix(tr("every "));
    m_interval->setSuffix(tr(" steps"));
    m_interval->setToolTip(tr("Steps between evaluations. Each costs about one force evaluation in fp64 "
                              "(O(N²): on the GPU with a CUDA kernel, else on the CPU)."));
    connect(m_interval, &QSpinBox::valueChanged, this, &DiagnosticsDock::intervalEdited);

    m_latest = new QLabel(tr("no samples yet"));
    m_latest->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* exportButton = new QPushButton(tr("Export CSV…"));
    exportButton->setToolTip(tr("Write every sample of this run as CSV"));
    connect(exportButton, &QPushButton::clicked, this, &DiagnosticsDock::chooseExportFile);
    auto* clearButton = new QPushButton(tr("Clear"));
    clearButton->setToolTip(tr("Forget the samples so far (the run goes on)"));
    connect(clearButton, &QPushButton::clicked, this, &DiagnosticsDock::restart);

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Evaluate")));
    controls->addWidget(m_interval);
    controls->addWidget(m_latest, 1);
    controls->addWidget(clearButton);
    controls->addWidget(exportButton);

    auto* layout = new QVBoxLayout;
    layout->addLayout(controls);
    layout->addLayout(charts, 1);
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
    c.chart->legend()->setVisible(left.size() + right.size() > 1);
    c.chart->legend()->setAlignment(Qt::AlignBottom);
    c.chart->setMargins(QMargins(2, 2, 2, 2));
    c.x = new QValueAxis;
    c.x->setTitleText(tr("time"));
    c.x->setLabelFormat(QStringLiteral("%.3g"));
    c.chart->addAxis(c.x, Qt::AlignBottom);
    c.y = new QValueAxis;
    c.y->setTitleText(yTitle);
    c.y->setLabelFormat(QStringLiteral("%.3g"));
    c.y->setTickCount(5);
    c.chart->addAxis(c.y, Qt::AlignLeft);
    for (QLineSeries* s : left) {
        c.chart->addSeries(s);
        s->attachAxis(c.x);
        s->attachAxis(c.y);
    }
    if (!right.isEmpty()) {
        c.y2 = new QValueAxis;
        c.y2->setTitleText(right.front()->name());
        c.y2->setLabelFormat(QStringLiteral("%.3g"));
        c.y2->setTickCount(5);
        c.chart->addAxis(c.y2, Qt::AlignRight);
        for (QLineSeries* s : right) {
            c.chart->addSeries(s);
            s->attachAxis(c.x);
            s->attachAxis(c.y2);
        }
    }
    return c;
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
    for (std::size_t i = (from + stride - 1) / stride * stride; i < all.size(); i += stride) {
        const Diagnostics& d = all[i];
        const double t = d.time;
        k.append({t, d.kinetic});
        w.append({t, d.potential});
        e.append({t, d.total});
        de.append({t, d.energyChange});
        p.append({t, norm(d.momentum)});
        l.append({t, norm(d.angularMomentum)});
        v.append({t, d.virialRatio});
        m_xRange.add(t);
        for (double y : {d.kinetic, d.potential, d.total})
            m_charts[0].yRange.add(y);
        m_charts[1].yRange.add(d.energyChange);
        m_charts[2].yRange.add(p.back().y());
        m_charts[2].y2Range.add(l.back().y());
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

void DiagnosticsDock::rebuildCharts()
{
    m_xRange = {};
    for (Chart& c : m_charts)
        c.yRange = c.y2Range = {};
    for (QLineSeries* s : {m_kinetic, m_potential, m_total, m_energyChange, m_momentum, m_angularMomentum, m_virial})
        s->clear();
    addPoints(0);
}

void DiagnosticsDock::updateAxes()
{
    auto apply = [](QValueAxis* axis, const Range& r) {
        if (!axis)
            return;
        if (r.empty) {
            axis->setRange(0, 1);
            return;
        }
        auto [lo, hi] = padded(r.lo, r.hi);
        // A nearly constant series (|L| = 38.5363 ± 1e-4, a virial ratio of 1.04125) or a tiny one
        // (|P| ~ 1e-16): give the span at least 1e-9 of the magnitude and enough digits to tell
        // the ticks apart; applyNiceNumbers only where its rounding keeps the data in view.
        const double magnitude = std::max(std::abs(lo), std::abs(hi));
        if (hi - lo < 1e-9 * magnitude) {
            const double mid = 0.5 * (lo + hi), half = 0.5e-9 * magnitude;
            lo = mid - half;
            hi = mid + half;
        }
        const double span = hi - lo;
        const int digits = std::clamp(int(std::ceil(std::log10(std::max(magnitude, span) / span))) + 2, 3, 12);
        axis->setLabelFormat(QStringLiteral("%.") + QString::number(digits) + QStringLiteral("g"));
        axis->setRange(lo, hi);
        if (digits <= 4 && magnitude > 1e-6)
            axis->applyNiceNumbers(); // round limits and ticks
    };
    for (Chart& c : m_charts) {
        apply(c.x, m_xRange);
        apply(c.y, c.yRange);
        apply(c.y2, c.y2Range);
    }
}

void DiagnosticsDock::updateLatest()
{
    if (m_recorder.empty()) {
        m_latest->setText(tr("no samples yet"));
        return;
    }
    const Diagnostics& d = m_recorder.samples().back();
    m_latest->setText(tr("%1 samples · step %2 · t = %3 · E = %4 · ΔE/E₀ = %5 · 2K/|W| = %6")
                          .arg(m_recorder.size())
                          .arg(d.step)
                          .arg(d.time, 0, 'g', 6)
                          .arg(d.total, 0, 'g', 9)
                          .arg(d.energyChange, 0, 'e', 3)
                          .arg(d.virialRatio, 0, 'g', 5));
}

void DiagnosticsDock::restart()
{
    m_recorder.clear();
    m_stride = 1;
    rebuildCharts();
    updateAxes();
    updateLatest();
}

bool DiagnosticsDock::exportCsv(const QString& path)
{
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
