#include "AppSetup.h"

#include "FrameProtocol.h"
#include "SimulationController.h"

#include "sim/SimParams.h"

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
}

void registerMetaTypes()
{
    qRegisterMetaType<nbody::app::FrameRequest>();
    qRegisterMetaType<nbody::app::FrameResult>();
    qRegisterMetaType<nbody::app::StartupConfig>();
    qRegisterMetaType<nbody::SimParams>();
}

} // namespace nbody::app
