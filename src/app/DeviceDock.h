#pragma once
/// \file DeviceDock.h
/// The Device dock and Help → About this machine: the rows of sim/base/MachineInfo.h (CUDA runtime
/// and devices, OpenMP, the view's OpenGL context and whether CUDA-GL interop is in use), the
/// same rows `nbody devices` prints. Read-only; "Copy" puts the text form (machineText) on the
/// clipboard, Ctrl+C the selected rows.

#include "sim/base/MachineInfo.h"

#include <QDialog>
#include <QDockWidget>
#include <QPointer>
#include <QWidget>

#include <vector>

class QAction;
class QPushButton;
class QTreeWidget;

namespace nbody::app {

/// A tree of sections (titles at the top level, "label | value" rows below, tooltips saying what
/// a row means) with a Copy button.
class MachineInfoView : public QWidget {
    Q_OBJECT
public:
    explicit MachineInfoView(QWidget* parent = nullptr);
    void setSections(std::vector<nbody::MachineSection> sections);
    const std::vector<nbody::MachineSection>& sections() const { return m_sections; }
    /// machineText(sections()): what Copy puts on the clipboard.
    QString text() const;
    QTreeWidget* tree() const { return m_tree; }
    QPushButton* copyButton() const { return m_copy; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void copySelection();
    std::vector<nbody::MachineSection> m_sections;
    QTreeWidget* m_tree = nullptr;
    QPushButton* m_copy = nullptr;
};

class DeviceDock : public QDockWidget {
    Q_OBJECT
public:
    /// Queries CUDA and OpenMP once; the OpenGL rows say "not created yet" until setGlContext().
    explicit DeviceDock(QWidget* parent = nullptr);

    /// The OpenGL part (Viewport::glContextInfo()); rebuilds the rows when it changed.
    void setGlContext(const nbody::GlContextInfo& gl);
    /// A GPU fault paused the run: a "GPU fault" section (key "gpuFault", row "fault") with the
    /// message, and whether the CUDA context is lost (row "context"). "" removes it.
    void setGpuFault(const QString& message);
    const std::vector<nbody::MachineSection>& sections() const { return m_view->sections(); }
    QString text() const { return m_view->text(); }
    MachineInfoView* view() const { return m_view; }

    /// Help → About this machine: opens (or raises) the dialog, which follows this dock.
    QAction* aboutMachineAction() const { return m_aboutAction; }
    /// The dialog while it is open (nullptr otherwise).
    QDialog* aboutMachineDialog() const { return m_dialog; }

    /// The "Application" section of the dialog: N-Body Sandbox's version, Qt's (run time and
    /// build time) and whether the CUDA kernels are built in.
    static nbody::MachineSection applicationSection();

signals:
    void sectionsChanged();

private:
    void rebuild();
    void showAboutMachine();

    nbody::CudaRuntimeInfo m_cuda;
    int m_threads = 1;
    int m_processors = 1;
    nbody::GlContextInfo m_gl;
    QString m_fault; ///< setGpuFault()
    MachineInfoView* m_view = nullptr;
    QAction* m_aboutAction = nullptr;
    QPointer<QDialog> m_dialog;
};

} // namespace nbody::app
