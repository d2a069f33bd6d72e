#pragma once
/// \file DiagnosticsDock.h
/// The "Diagnostics" dock: live charts (Qt Charts) of the series the SimulationController
/// evaluates every SimParams::diagnosticsInterval steps — kinetic, potential and total energy,
/// the relative energy change (E − E0)/|E0|, the magnitudes of linear and angular momentum, and
/// the virial ratio 2K/|W| — against simulated time; the interval; Export CSV… (the complete
/// series, written atomically). Like RunDock it reports edits (intervalEdited) and takes values
/// through setters that emit nothing.
///
/// Every sample is kept (nbody::DiagnosticsRecorder, about 170 bytes each) and exported; the
/// charts show every sample until a series would exceed kMaxChartPoints, then every second one,
/// every fourth, … (the stride doubles), so drawing stays fast in long runs.
///
/// Axes show the real range in a short form: each axis has a scale (AxisScale) — a shared power
/// of ten and, for a nearly constant series, an offset — named in its title ("|P| (×10⁻²⁰)",
/// "|L| − 38.536 (×10⁻⁵)"), and ticks at 1, 2 or 5 × 10^k of the scaled values ("0.5"), so the
/// labels are a few characters wide and never elided, and Qt Charts (which treats ranges below
/// about 1e-12 as empty) only ever sees values of order one. The series hold the scaled values;
/// dataPoint() gives them back in the quantity's units.
///
/// When the reference E₀ is taken again during a run (a change of G or ε², an edit of the
/// bodies: SimulationController::energyReferenceRebased), each time chart draws a dashed vertical
/// line at that time, labelled with what changed ("ε² 0.0025 → 0.000625"), and the line of
/// latest values says when and why; the lines follow rescaled axes, thinning and resizing, and a
/// restart clears them.

#include "ChartAxes.h"
#include "FrameProtocol.h" // the metatypes of nbody::SimParams and nbody::Diagnostics
#include "sim/core/DiagnosticsRecorder.h"
#include "sim/core/SimParams.h"

#include <QDockWidget>
#include <QList>

class QChart;
class QGraphicsSimpleTextItem;
class QChartView;
class QLabel;
class QLineSeries;
class QPushButton;
class QSpinBox;
class QValueAxis;

namespace nbody::app {

class DiagnosticsDock : public QDockWidget {
    Q_OBJECT
public:
    /// Chart points per series before the stride doubles.
    static constexpr int kMaxChartPoints = 4000;
    /// A chart's smallest size (px) until it is laid out; then its height is what its plot needs
    /// for three ticks and for its vertical titles' lines (fitTitles). Where there is room, a
    /// chart is kChartHeight tall.
    static constexpr int kMinChartWidth = 260, kMinChartHeight = 150, kChartHeight = 200;

    explicit DiagnosticsDock(QWidget* parent = nullptr);

    /// Every sample since the last restart (what Export CSV writes).
    const nbody::DiagnosticsRecorder& recorder() const { return m_recorder; }
    /// The chart series, by name: "kinetic", "potential", "total", "energy change", "momentum",
    /// "angular momentum", "virial ratio".
    QLineSeries* series(const QString& name) const;
    /// Point `i` of series `name` in the quantity's units (time, value): the series' point
    /// through its axes' scales.
    QPointF dataPoint(const QString& name, int i) const;
    /// The value axis a series is drawn against (the x axis with `x`).
    QValueAxis* axis(const QString& name, bool x = false) const;
    /// That axis' layout: its scale, range and tick labels.
    AxisLayout axisLayout(const QString& name, bool x = false) const;
    int interval() const;
    /// A moment at which E₀ was taken again (markRebase).
    struct Marker {
        double time = 0;
        QString name;
    };
    const QList<Marker>& markers() const { return m_markers; }
    /// The vertical lines of the markers (one two-point series each, in plot coordinates as the
    /// series are) and their labels, in the chart of series `name`.
    QList<QLineSeries*> markerLines(const QString& name) const;
    QList<QGraphicsSimpleTextItem*> markerLabels(const QString& name) const;
    /// The warning of a run whose energy is not to be trusted (DiagnosticsPresenter), shown above
    /// the charts; "" hides it.
    void setEnergyWarning(const QString& text);
    QString energyWarning() const;

    /// Writes the recorded series as CSV to `path` (atomically: a failed write leaves no partial
    /// file and the target unchanged). With no samples it writes nothing, says so in a box and
    /// returns false (the Export CSV… button is disabled then). On failure shows a warning box (non-blocking) naming the
    /// path and the reason, and returns false.
    bool exportCsv(const QString& path);

public slots:
    /// New samples from SimulationController::diagnosticsMeasured.
    void appendDiagnostics(const QList<nbody::Diagnostics>& samples);
    /// Forgets every sample and marker (a new system: SimulationController::diagnosticsRestarted).
    void restart();
    /// E₀ was taken again at simulated time `time` because of `name`
    /// (SimulationController::energyReferenceRebased): a marker in every chart.
    void markRebase(double time, const QString& name);
    /// Shows the interval of `params` (emits nothing).
    void setParams(const nbody::SimParams& params);

signals:
    /// The user changed the interval (steps; 0 = no diagnostics).
    void intervalEdited(int steps);

private:
    struct Range {
        double lo = 0, hi = 0;
        bool empty = true;
        void add(double v);
    };
    struct Chart {
        QChart* chart = nullptr;
        QChartView* view = nullptr;
        QValueAxis* x = nullptr;
        QValueAxis* y = nullptr;
        QValueAxis* y2 = nullptr; ///< right axis of the momentum chart (|L|)
        QString xTitle, yTitle, y2Title; ///< the quantities, before the scales are added
        Range yRange, y2Range;
        AxisLayout xLayout, yLayout, y2Layout;
        QList<QLineSeries*> markerLines;              ///< one per marker, on the left axis
        QList<QGraphicsSimpleTextItem*> markerLabels; ///< one per marker, children of the chart
    };
    /// The chart and whether the series is on its right axis.
    std::pair<const Chart*, bool> chartOf(const QLineSeries* s) const;
    Chart makeChart(const QString& title, const QString& yTitle, const QList<QLineSeries*>& left,
                    const QList<QLineSeries*>& right = {});
    void addPoints(std::size_t from);
    /// |L| of the first sample when it is positive and finite, else 0: the angular momentum is
    /// then drawn as its relative change Δ|L|/|L₀| (as ΔE/E₀; |L| itself is conserved to 1e-13
    /// and more, and an offset title of |L| − 0.607766… with 12 digits does not fit the axis),
    /// else as |L| (a system at rest).
    double angularReference() const;
    /// The angular momentum series' series name and axis title for angularReference().
    void nameAngularSeries();
    void rebuildCharts();
    /// Gives each chart the height in which every line of its vertical axes' titles is drawn
    /// whole (the axis' length is the plot's height; the charts scroll in a short dock).
    void fitTitles();
    /// Lays out every axis for the data's range; a changed scale re-plots the points (true).
    bool updateAxes();
    void updateLatest();
    /// Puts each marker's line across its chart's plot at the marker's time through the axes'
    /// current layouts, and its label at the line's top (hidden outside the time axis).
    void placeMarkers();
    /// Removes the markers' lines and labels from the charts.
    void clearMarkers();
    void chooseExportFile();

    nbody::DiagnosticsRecorder m_recorder;
    int m_stride = 1; ///< every m_stride-th sample is drawn
    Range m_xRange;
    QList<Chart> m_charts;
    QLineSeries* m_kinetic = nullptr;
    QLineSeries* m_potential = nullptr;
    QLineSeries* m_total = nullptr;
    QLineSeries* m_energyChange = nullptr;
    QLineSeries* m_momentum = nullptr;
    QLineSeries* m_angularMomentum = nullptr;
    QLineSeries* m_virial = nullptr;
    QSpinBox* m_interval = nullptr;
    QLabel* m_latest = nullptr;
    QPushButton* m_exportButton = nullptr; ///< Export CSV…: enabled while there are samples
    QLabel* m_energyWarning = nullptr;
    QList<Marker> m_markers;
    QString m_lastExportDir;
    bool m_relayoutQueued = false;
};

} // namespace nbody::app
