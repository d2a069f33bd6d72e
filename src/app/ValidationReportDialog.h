#pragma once
/// \file ValidationReportDialog.h
/// View → Validation report: a non-modal dialog showing a nbody::ValidationReport — the verdict
/// ("3 of 4 kernels pass"), the run's parameters, device and build; a summary table per kernel
/// (precision, step-0 force error max / p99 / median, final relative errors of positions,
/// velocities and accelerations, ΔE/E0, a PASS / FAIL / ERROR badge); the per-field statistics
/// (absolute and relative max / median / RMS, the predecessor's miss counts); the error growth
/// chart (max position error against step, log scale, one series per kernel); the energy change
/// chart (ΔE/E0 against step per kernel and for the reference: nbody::energyCurves, the reference
/// first and wide, a kernel on another's curve dashed with markers and named once in the legend,
/// the axis through a shared exponent, ChartAxes.h); thresholds, failure reasons and
/// the report's warnings about the run as a whole.
/// Export JSON… and Export HTML… write the report through nbody::writeValidationReport
/// (atomically: a failed write keeps the old file and says why in a message box).

#include "ChartAxes.h"

#include <QDialog>
#include <QSize>
#include <QString>

#include <memory>

class QChart;
class QDialogButtonBox;
class QRect;
class QShowEvent;
class QLabel;
class QTabWidget;
class QTableWidget;

namespace nbody { struct ValidationReport; }

namespace nbody::app {

class ValidationReportDialog : public QDialog {
    Q_OBJECT
public:
    explicit ValidationReportDialog(QWidget* parent = nullptr);

    /// Shows `report` (replacing the one shown).
    void setReport(std::shared_ptr<const nbody::ValidationReport> report);
    std::shared_ptr<const nbody::ValidationReport> report() const { return m_report; }

    /// Writes the report to `path` (JSON or HTML by the extension). On failure shows a warning
    /// box (non-blocking) naming the file and the reason and saying the old file was kept, and
    /// returns false.
    bool exportTo(const QString& path);

    /// Its size where the screen has room (kPreferredSize), else the room left in `available`
    /// (a screen's available geometry) by the window's frame, and its frame centred inside it:
    /// on a 1366 × 768 laptop the report and its buttons are whole (what does not fit above
    /// the buttons scrolls). Done for its screen when first shown.
    void placeWithin(const QRect& available);
    static constexpr QSize kPreferredSize{1100, 760};
    /// The title bar's height assumed before the window manager has framed the dialog.
    static constexpr int kTitleBarAllowance = 40;

    QTableWidget* summaryTable() const { return m_summary; }
    QTableWidget* fieldTable() const { return m_fields; }
    QChart* growthChart() const { return m_growthChart; }
    QChart* energyChart() const { return m_energyChart; }
    /// The energy chart's y axis: its series hold ΔE/E₀ through this scale.
    const AxisLayout& energyAxisLayout() const { return m_energyLayout; }

protected:
    void showEvent(QShowEvent* event) override;

private:
    /// The verdict, the run's parameters, the environment and the reference's line.
    void createHeading();
    /// The per-kernel summary table.
    void createSummary();
    /// The reasons for a FAIL and the warnings.
    void createNotes();
    /// The per-field statistics table (a tab).
    void createFieldTable();
    /// The tabs: error growth and energy change charts, per-field statistics.
    void createTabs();
    /// Close, Export JSON… and Export HTML….
    QDialogButtonBox* createButtons();
    void chooseExport(const QString& suffix);
    void fillSummary();
    void fillFields();
    void fillGrowthChart();
    void fillEnergyChart();

    std::shared_ptr<const nbody::ValidationReport> m_report;
    bool m_placed = false; ///< placeWithin its screen on the first show
    QLabel* m_verdict = nullptr;
    QLabel* m_parameters = nullptr;
    QLabel* m_environment = nullptr;
    QLabel* m_reference = nullptr;
    QLabel* m_reasons = nullptr;
    QLabel* m_warnings = nullptr;
    QTableWidget* m_summary = nullptr;
    QTableWidget* m_fields = nullptr;
    QTabWidget* m_tabs = nullptr;
    QChart* m_growthChart = nullptr;
    QChart* m_energyChart = nullptr;
    AxisLayout m_energyLayout;
    QString m_lastDir;
};

} // namespace nbody::app
