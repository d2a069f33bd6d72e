#pragma once
/// \file KernelDock.h
/// The "Kernel" dock: every row of the kernel registry grouped by backend (with precision and
/// layout as columns), the running kernel's description and facts, and its
/// launch parameters (block size, block rows, tile width factor, bodies per thread, j-split,
/// unroll; only those the kernel reads are enabled; 0 shows as "auto": the tuned value for this
/// device and N, else the kernel's default), a line saying what they resolve to and where from
/// ("tuned on this device 2026-12-01: block 128, … — 1.2e12 interactions/s" or "default (not
/// tuned yet): …"), and a "Tune now" button; for tree rows (ForceMethod::Tree) only, the force
/// accuracy (the p99 of the step-0 force error, which picks θ from the kernel's calibration
/// table) and, folded under "Advanced", the opening angle θ and the leaf size. Like RunDock it only shows values and reports edits: KernelPresenter
/// forwards the edits to the SimulationController and feeds its answers back through the setters,
/// which emit nothing, so the dock, the Kernel menu and the controller cannot loop. A refused edit (the
/// Simulation throws std::invalid_argument naming the limit) is shown inline by showRefusal()
/// while the setters put the value in use back.
///
/// It also shows the running kernel's share of this device's issue-slot ceiling (sim/core/Ceiling.h)
/// from the rate the status bar shows (StatusPresenter feeds setMeasuredRate() from each timed
/// frame).

#include "sim/base/DeviceInfo.h"
#include "sim/core/SimParams.h"

#include <optional>

#include <QDockWidget>
#include <QString>

namespace nbody {
struct AccuracyPoint; // sim/core/ForceAccuracy.h
}

class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QToolButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace nbody { struct KernelInfo; }

namespace nbody::app {

class ParamForm;

/// The tooltip of a kernel wherever it is listed (Kernel menu, Kernel dock): its description,
/// and for a kernel that cannot run here, "Unavailable: <reason>" after a blank line.
QString kernelToolTip(const nbody::KernelInfo& kernel);

class KernelDock : public QDockWidget {
    Q_OBJECT
public:
    explicit KernelDock(QWidget* parent = nullptr);

    /// Selects the running kernel (an id of the registry; unknown ids select nothing), shows its
    /// description and enables the parameters it reads. Emits nothing.
    void setKernel(const QString& id);
    /// Shows the launch parameters in use. Emits nothing.
    void setParams(const nbody::SimParams& params);
    /// The CUDA device the kernels run on (device 0; nullopt: none), for the ceiling. Emits nothing.
    void setDevice(const std::optional<nbody::CudaDeviceInfo>& device);
    /// The interactions per second measured for `kernelId` (the status bar's rate); ignored
    /// unless it is the kernel shown; 0: none measured yet (a fresh system). Emits nothing.
    void setMeasuredRate(const QString& kernelId, double interactionsPerSecond);
    double measuredRate() const { return m_rate; }
    /// The number of bodies (the tuner's N bucket depends on it). Emits nothing.
    void setBodies(qulonglong bodies);
    /// Re-reads what the launch parameters resolve to (after the tuner wrote the cache).
    void refreshLaunchInfo();
    /// Greys out (with the reason in the tooltip) the rows that cannot run any more: after a GPU
    /// fault lost the CUDA context (sim/core/KernelRegistry.h, markCudaContextLost).
    void refreshAvailability();
    /// While true the "Tune now" button is disabled and the line says the tuner is running.
    void setTuning(bool tuning);
    /// Shows why an edit was refused (cleared by the next edit or kernel choice).
    void showRefusal(const QString& message);
    void clearRefusal();

    QString kernelId() const { return m_kernelId; }

signals:
    /// The user picked another (available) kernel in the list.
    void kernelSelected(const QString& id);
    /// The user edited a parameter of the table's Launch or Tree group (ParamWidgets.h): the
    /// row's key ("blockSize", "openingAngle") and the value's exact text.
    void paramEdited(const QString& key, const QString& text);
    /// "Tune now": measure the running kernel's launch parameters again at the current N.
    void tuneRequested();

private:
    /// The registry grouped by backend, as tall as its rows (the dock scrolls as a whole).
    QTreeWidget* createTable(QWidget* parent);
    /// "Selected kernel": the running kernel's facts, its ceiling share and its description.
    QGroupBox* createDetailBox(QWidget* parent);
    /// "Launch parameters": the table's Launch rows, where their values come from, Tune now,
    /// and the line that says why an edit was refused.
    QGroupBox* createLaunchBox(QWidget* parent);
    /// "Tree parameters", shown for tree rows only: the force accuracy (SimParams::forceAccuracy,
    /// a choice per setting worth choosing in the kernel's calibration tables,
    /// sim/core/ForceAccuracy.h) with the θ (and α) it picks and the error expected, then, folded
    /// under "Advanced", θ, the leaf size and α.
    QGroupBox* createTreeBox(QWidget* parent);
    /// The force-accuracy choices of the running kernel: off, then its calibration table's p99s.
    void fillAccuracyChoices();
    static QString settingText(const nbody::AccuracyPoint& pt);
    /// Selects the force accuracy in use and says which θ it picks and the error it expects.
    void showAccuracy();
    void onCurrentItemChanged(QTreeWidgetItem* item);
    void showDetails(const nbody::KernelInfo* kernel);
    void showCeiling();

    QString m_kernelId;
    QTreeWidget* m_table;
    QLabel* m_title;
    QLabel* m_precision;
    QLabel* m_layout;
    QLabel* m_deterministic;
    QLabel* m_flops;
    QLabel* m_ceiling;
    std::optional<nbody::CudaDeviceInfo> m_device;
    double m_rate = 0;
    QLabel* m_description;
    ParamForm* m_launchForm;        ///< the table's Launch rows (one process: not the exchange's)
    QGroupBox* m_treeBox;           ///< shown for tree rows only
    QComboBox* m_accuracy;          ///< the force accuracy (p99): off or a row of the calibration table
    QLabel* m_accuracyInfo;         ///< the θ it picks and the error expected
    QToolButton* m_treeAdvanced;    ///< unfolds the advanced tree rows (θ, leaf size)
    ParamForm* m_treeForm;          ///< the table's other Tree rows: θ, leaf size
    QLabel* m_launchInfo;
    QPushButton* m_tuneNow;
    QLabel* m_refusal;
    nbody::SimParams m_params;
    qulonglong m_bodies = 0;
    bool m_tuning = false;
};

} // namespace nbody::app
