#pragma once
/// \file EditPresenter.h
/// The sandbox's tools: the Edit menu, the viewport's add and delete gestures, the Add body
/// tool's options (mass and radius) and predicted path, and Undo / Redo of edits.

#include "sim/core/SimParams.h"

#include <QList>
#include <QObject>
#include <QString>

class QAction;
class QActionGroup;
class QComboBox;
class QMainWindow;
class QToolBar;
class QUndoStack;

namespace nbody::app {

class LaunchPreview;
class Notices;
class RunDock;
class ScientificSpinBox;
class SimulationController;
class Viewport;

/// Owns the exclusive tool actions (Navigate, Add body, Add cluster, Delete region: keys 1–4),
/// the Add body tool's options bar, Edit → Undo / Redo (a QUndoStack of the edits) and the
/// LaunchPreview. Connects the viewport's add and remove gestures to the controller's edits
/// (queued functors: no metatypes for the arguments), the controller's editRecorded to the undo
/// stack and editApplied to the status bar, and an Add body drag to the prediction: the field
/// is asked for at the press (requestLaunchField, matched by serial), the path predicted on a
/// worker thread as the drag moves, for the Run dock's preview duration, with the tool's mass.
///
/// The Add body options (a toolbar shown while the tool is picked): the new body's mass and
/// radius, each with a unit. A new system sets their defaults: in the Solar System's units (AU,
/// M☉) one Earth mass and Earth's radius, offered in Earth masses, Jupiter masses or solar
/// masses and km or AU; otherwise the system's median mass and radius 0 (a point mass), in
/// the system's units. Mass 0 is a test particle.
class EditPresenter : public QObject {
    Q_OBJECT
public:
    EditPresenter(QMainWindow* window, Viewport* viewport, RunDock* runDock, SimulationController* controller,
                  Notices& notices);

    QList<QAction*> toolActions() const;
    QAction* undoAction() const { return m_undoAction; }
    QAction* redoAction() const { return m_redoAction; }
    /// The Add body options bar (shown while Add body is the tool).
    QToolBar* optionsBar() const { return m_optionsBar; }
    /// The new body's mass and radius in the system's units, as the options give them (a value
    /// the fields refused leaves the one before in use).
    double bodyMass() const;
    double bodyRadius() const;

signals:
    void undoRequested();
    void redoRequested();
    void launchFieldRequested(quint64 serial, qulonglong maxSources);

private:
    void createActions(QMainWindow* window);
    void createOptions(QMainWindow* window);
    void connectEdits(SimulationController* controller);
    void connectLaunchPreview(SimulationController* controller);
    /// Defaults for a new system (unitsChanged, then massesChanged).
    void setDefaults(double medianMass);
    /// The fields' allowed values in the chosen units: mass [0, m_largestMass], radius [0, the
    /// largest fp32 value] (FieldRange refuses the others in the field).
    void updateRanges();

    Viewport* m_viewport;
    RunDock* m_runDock;
    Notices& m_notices;
    QActionGroup* m_toolGroup = nullptr;
    QUndoStack* m_undoStack = nullptr;
    QAction* m_undoAction = nullptr;
    QAction* m_redoAction = nullptr;
    LaunchPreview* m_launchPreview = nullptr;
    quint64 m_launchSerial = 0;
    QToolBar* m_optionsBar = nullptr;
    ScientificSpinBox* m_mass = nullptr;
    QComboBox* m_massUnit = nullptr;
    ScientificSpinBox* m_radius = nullptr;
    QComboBox* m_radiusUnit = nullptr;
    bool m_optionsBarPlaced = false; ///< added to the window (below the main toolbar)
    bool m_solarUnits = false;     ///< the system's unit of G is AU³ M☉⁻¹ day⁻²
    double m_defaultMass = 0;      ///< mass units
    double m_defaultRadius = 0;    ///< length units
    /// The largest mass a new body may have (mass units), nbody::largestBodyMass for the
    /// parameters and the kernel's precision in use.
    double m_largestMass = 0;
    nbody::SimParams m_params;
    bool m_fp64 = false; ///< the kernel in use computes in fp64
};

} // namespace nbody::app
