#pragma once
/// \file FuzzChecks.h
/// What every reader promises about a World it returns (Snapshot.h): at least one body, at most
/// kMaxBodies, finite fp32 positions and velocities, finite non-negative masses, a finite time.
/// A fuzz target calls checkWorld on every successful read; a broken promise aborts (a finding).

#include "sim/core/Scenario.h"
#include "contracts/World.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace nbody::fuzz {

[[noreturn]] inline void broken(const char* what)
{
    std::fprintf(stderr, "fuzz: the reader broke its contract: %s\n", what);
    std::abort();
}

inline void checkWorld(const World& w)
{
    if (w.size() == 0 || w.size() > kMaxBodies)
        broken("body count outside 1..kMaxBodies");
    if (w.velocities().size() != w.size() || w.ids().size() != w.size() || w.groups().size() != w.size()
        || w.radii().size() != w.size())
        broken("columns of different lengths");
    if (!std::isfinite(w.time))
        broken("time not finite");
    for (std::size_t i = 0; i < w.size(); ++i) {
        const Float4 p = w.positions()[i], v = w.velocities()[i];
        if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z) || !std::isfinite(v.x)
            || !std::isfinite(v.y) || !std::isfinite(v.z))
            broken("a position or velocity not finite");
        if (!std::isfinite(p.w) || p.w < 0.f)
            broken("a mass negative or not finite");
        if (!std::isfinite(w.radii()[i]) || w.radii()[i] < 0.f)
            broken("a radius negative or not finite");
    }
}

} // namespace nbody::fuzz
