#include "AppSetup.h"

#include "FrameProtocol.h"
#include "SimulationController.h"

#include "sim/core/SimParams.h"

#include <QCoreApplication>
#include <QGuiApplication>
#include <QMetaType>
#include <QSurfaceFormat>

namespace nbody::app {

void setDefaultSurfaceFormat()
{
    QSurfaceFormat format;
    format.setRenderableType(QSurfaceFormat::OpenGL);
    format.setVersion(3, 3);
    format.setProfile(QSurfaceFormat::CoreProfile);
    format.setDepthBufferSize(24);
    format.setSwapInterval(1);
    QSurfaceFormat::setDefaultFormat(format);
    // Desktop OpenGL (not OpenGL ES) on every platform, Wayland included; sharing lets the
    // viewport's context survive being re-parented (docking) without losing its buffers.
    QCoreApplication::setAttribute(Qt::AA_UseDesktopOpenGL);
    QCoreApplication::setAttribute(Qt::AA_ShareOpenGLContexts);
}

void setApplicationNames()
{
    QCoreApplication::setOrganizationName(QStringLiteral("N-Body Sandbox"));
    QCoreApplication::setApplicationName(QStringLiteral("nbody-sandbox"));
    QGuiApplication::setApplicationDisplayName(QStringLiteral("N-Body Sandbox"));
    QCoreApplication::setApplicationVersion(QStringLiteral(NBODY_VERSION));
}

void registerMetaTypes()
{
    qRegisterMetaType<nbody::app::FrameRequest>();
    qRegisterMetaType<nbody::app::FrameResult>();
    qRegisterMetaType<nbody::app::StartupConfig>();
    qRegisterMetaType<nbody::SimParams>();
    qRegisterMetaType<std::shared_ptr<const nbody::app::SystemCopy>>();
    qRegisterMetaType<std::shared_ptr<const nbody::app::LaunchContext>>();
}

} // namespace nbody::app
