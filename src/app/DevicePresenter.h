#pragma once
/// \file DevicePresenter.h
/// The Device dock's live parts: the OpenGL context and a GPU fault.

#include <QObject>
#include <QPointer>

class QMainWindow;
class QMessageBox;

namespace nbody::app {

class DeviceDock;
class Notices;
class Viewport;

/// Keeps the Device dock's OpenGL section on the viewport's context (at glInitialized and each
/// interopStateChanged) and shows a GPU fault: a section in the dock and, unless the run is
/// scripted, the non-modal "GPU fault" box (gpuFaultBox) whose Continue on the CPU button emits
/// continueOnCpuRequested (the window selects `cpu` and starts); Stay paused closes it.
class DevicePresenter : public QObject {
    Q_OBJECT
public:
    DevicePresenter(QMainWindow* window, DeviceDock* dock, Viewport* viewport, Notices& notices);

    /// The controller paused at the last host copy after a GPU fault: `text` says why.
    void showGpuFault(const QString& text);

signals:
    void continueOnCpuRequested();

private:
    QMainWindow* m_window;
    DeviceDock* m_dock;
    Viewport* m_viewport;
    Notices& m_notices;
    QPointer<QMessageBox> m_faultBox; ///< "GPU fault": Continue on the CPU / Stay paused
};

} // namespace nbody::app
