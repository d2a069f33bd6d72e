#include "DevicePresenter.h"

#include "DeviceDock.h"
#include "Notices.h"
#include "Viewport.h"

#include <QMainWindow>
#include <QMessageBox>
#include <QPushButton>

namespace nbody::app {

DevicePresenter::DevicePresenter(QMainWindow* window, DeviceDock* dock, Viewport* viewport, Notices& notices)
    : QObject(window), m_window(window), m_dock(dock), m_viewport(viewport), m_notices(notices)
{
    connect(viewport, &Viewport::interopStateChanged, this,
            [this] { m_dock->setGlContext(m_viewport->glContextInfo()); });
    connect(viewport, &Viewport::glInitialized, this, [this] { m_dock->setGlContext(m_viewport->glContextInfo()); });
}

void DevicePresenter::showGpuFault(const QString& text)
{
    m_dock->setGpuFault(text.simplified());
    if (m_notices.scripted())
        return; // a scripted run exits 1 (MainWindow::onFrameReady)
    if (!m_faultBox) {
        m_faultBox =
            new QMessageBox(QMessageBox::Critical, tr("GPU fault"), text, QMessageBox::NoButton, m_window);
        m_faultBox->setObjectName(QStringLiteral("gpuFaultBox"));
        m_faultBox->setAttribute(Qt::WA_DeleteOnClose);
        m_faultBox->setModal(false);
        QPushButton* cpu = m_faultBox->addButton(tr("Continue on the CPU"), QMessageBox::AcceptRole);
        cpu->setObjectName(QStringLiteral("continueOnCpuButton"));
        m_faultBox->addButton(tr("Stay paused"), QMessageBox::RejectRole);
        connect(cpu, &QPushButton::clicked, this, &DevicePresenter::continueOnCpuRequested);
    }
    m_faultBox->setText(text);
    m_faultBox->show();
    m_faultBox->raise();
}

} // namespace nbody::app
