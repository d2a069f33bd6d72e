#pragma once
/// \file RunDock.h
/// The "Run" dock: how long to run, how many steps per frame, what is running (N, kernel,
/// interop) and the physical parameters of the simulation (dt, ε²; the kernel's launch
/// parameters are edited in the Kernel dock). It only shows values and reports edits;
/// RunPresenter forwards edits to the SimulationController and feeds its answers back through the
/// setters, which emit nothing (so the two-way binding cannot loop).

#include "sim/core/SimParams.h"

#include <QDockWidget>
#include <QDoubleSpinBox>

class QCheckBox;
class QGroupBox;
class QLabel;
class QSpinBox;

namespace nbody { struct KernelInfo; }

namespace nbody::app {

class ElidedLabel;
class ParamForm;

/// A QDoubleSpinBox that shows and accepts scientific notation ("2e-3"), for quantities
/// spanning many orders of magnitude. The arrows double or halve the value.
class ScientificSpinBox : public QDoubleSpinBox {
    Q_OBJECT
public:
    explicit ScientificSpinBox(QWidget* parent = nullptr);
    QString textFromValue(double value) const override;
    double valueFromText(const QString& text) const override;
    QValidator::State validate(QString& text, int& pos) const override;
    void stepBy(int steps) override;
    void fixup(QString& input) const override;
};

class RunDock : public QDockWidget {
    Q_OBJECT
public:
    explicit RunDock(QWidget* parent = nullptr);

    void setStepsToRun(int steps);
    void setStepsPerFrame(int steps);
    void setParams(const nbody::SimParams& params);
    void setBodies(qulonglong n);
    void setKernel(const nbody::KernelInfo* kernel);
    void setInteropState(const QString& state);
    void setSource(const QString& source);
    /// The unit of G of the system ("AU³ M☉⁻¹ day⁻²"); "" for N-body units (or unknown: then
    /// "N-body units" while G is 1, else "length³ mass⁻¹ time⁻²", the system's own units).
    void setUnitsOfG(const QString& units);
    QString unitsOfGText() const;
    /// The time-scale readout: simulated time per wall-clock second over the last second of
    /// frames, signed (negative while time runs backwards, SimParams::reverse); `running` false
    /// shows "paused". `units`: the time unit ("day"; "" for N-body units).
    void setTimeScale(double simulatedPerSecond, bool reverse, bool running, const QString& units = QString());
    QString timeScaleText() const;
    /// The Add body tool's predicted path covers this many dynamical times (LaunchPredictor.h).
    void setLaunchPreviewTimes(double times);
    double launchPreviewTimes() const;

signals:
    void stepsToRunEdited(int steps);
    void stepsPerFrameEdited(int steps);
    void dtEdited(double dt);
    void eps2Edited(double eps2);
    void gravitationalConstantEdited(double G);
    /// The "Collisions (merge on contact)" box was toggled (SimParams::collisions).
    void collisionsEdited(bool on);
    void launchPreviewTimesEdited(double times);
    /// A row of the "Time steps" form (the parameter table's TimeSteps rows: fixed or block,
    /// η, the deepest level) was edited to `text`.
    void paramEdited(const QString& key, const QString& text);

private:
    /// "Run": steps to run, steps per frame, the time scale, the Add body tool's preview length.
    QGroupBox* createRunBox(QWidget* parent);
    /// "System": what is running (source, N, kernel, the positions' path).
    QGroupBox* createSystemBox(QWidget* parent);
    /// "Parameters": dt, ε², G with its unit, collisions.
    QGroupBox* createParamBox(QWidget* parent);

    QSpinBox* m_stepsToRun;
    QSpinBox* m_stepsPerFrame;
    QLabel* m_bodies;
    QLabel* m_timeScale;
    QDoubleSpinBox* m_previewTimes;
    QLabel* m_kernel;
    QLabel* m_interop;
    ElidedLabel* m_source;
    ScientificSpinBox* m_dt;
    ScientificSpinBox* m_eps2;
    ScientificSpinBox* m_G;
    QLabel* m_GUnits;
    QCheckBox* m_collisions;
    ParamForm* m_timeSteps; ///< the table's TimeSteps rows
    QString m_unitsOfG;
    double m_shownG = 1.0;
    void showUnitsOfG();
};

} // namespace nbody::app
