#pragma once
/// \file KernelPresenter.h
/// The Kernel menu and the Kernel dock, bound to the SimulationController.

#include "sim/core/SimParams.h"

#include <QList>
#include <QObject>
#include <QString>

class QAction;
class QActionGroup;
class QMainWindow;

namespace nbody::app {

class KernelDock;
class Notices;
class SimulationController;

/// Owns the Kernel menu's exclusive group (one row per kernel of the registry, named
/// "kernelGroup") and keeps it and the dock on the running kernel. A pick in either that differs
/// from the running kernel goes out as kernelRequested (the window forwards it to the
/// controller). Connects the dock's parameter edits and Tune now to the controller (an opening
/// angle edited while a force accuracy picks θ turns the force accuracy off first), and the
/// tuner's start and end to the dock and the status bar.
class KernelPresenter : public QObject {
    Q_OBJECT
public:
    KernelPresenter(QMainWindow* window, KernelDock* dock, SimulationController* controller, Notices& notices);

    QList<QAction*> menuActions() const;
    /// The kernel the controller last reported.
    const QString& kernelId() const { return m_kernelId; }

    /// The running kernel: checks its row in the menu and selects it in the dock.
    void setKernel(const QString& id);
    void setParams(const nbody::SimParams& params);
    void setBodies(qulonglong n);
    /// A refused kernel command: the dock says why next to the value it put back (no dialog).
    void showRefusal(const QString& text);
    /// After a GPU fault: the rows' availability (a lost CUDA context disables the CUDA rows,
    /// with the reason) in the menu and the dock.
    void refreshAvailability();

signals:
    void kernelRequested(const QString& id);

private:
    void createMenuActions(QMainWindow* window);
    void connectTuner(SimulationController* controller);

    KernelDock* m_dock;
    Notices& m_notices;
    QActionGroup* m_group = nullptr;
    QString m_kernelId;
    nbody::SimParams m_params; ///< the parameters the controller last reported
};

} // namespace nbody::app
