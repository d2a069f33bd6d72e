#pragma once
/// \file BodyCount.h
/// A number of bodies in the app's sentences: "1 body", "3001 bodies" — the singular for
/// exactly one, as nbody::bodyCount (sim/base/Format.h) writes them for the core and the CLI,
/// but translatable and, where asked, with the locale's digit grouping ("3,001 bodies").

#include <QCoreApplication>
#include <QString>

namespace nbody::app {

/// "1 body", "3001 bodies".
inline QString bodyCountText(qulonglong n)
{
    return n == 1 ? QCoreApplication::translate("nbody::app", "%1 body").arg(n)
                  : QCoreApplication::translate("nbody::app", "%1 bodies").arg(n);
}

/// "1 body", "3,001 bodies": grouped as the locale groups digits.
inline QString bodyCountGrouped(qulonglong n)
{
    return n == 1 ? QCoreApplication::translate("nbody::app", "%L1 body").arg(n)
                  : QCoreApplication::translate("nbody::app", "%L1 bodies").arg(n);
}

} // namespace nbody::app
