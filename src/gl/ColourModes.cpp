#include "ColourModes.h"

namespace nbody::gl {

namespace {

constexpr ColourMode kModes[] = {
    {"mass", "Mass (green → red)", "Green for the lightest bodies, red for the heaviest, over the system's mass range",
     ColourSource::Mass, {0.f, 1.f, 0.f}, {1.f, 0.f, 0.f}},
    {"speed", "Speed (blue → yellow)", "Blue for bodies at rest, yellow for the fastest (99th percentile of the speeds)",
     ColourSource::Speed, {0.15f, 0.35f, 1.f}, {1.f, 0.9f, 0.1f}},
    {"group", "Group", "One colour per group: dark matter, stars, gas (files) or generic (the default cube)",
     ColourSource::Group, {0.f, 0.f, 0.f}, {0.f, 0.f, 0.f}},
};

} // namespace

std::span<const ColourMode> colourModes()
{
    return kModes;
}

const ColourMode* findColourMode(std::string_view id)
{
    for (const ColourMode& m : kModes)
        if (m.id == id)
            return &m;
    return nullptr;
}

} // namespace nbody::gl
