#include "ColourModes.h"

#include "contracts/Quantile.h"
#include "contracts/World.h"

#include <algorithm>
#include <cmath>

namespace nbody::gl {

namespace {

constexpr ColourMode kModes[] = {
    {"mass", "Mass (green → red)", "Green for the lightest bodies, red for the heaviest, over the system's mass range",
     ColourSource::Mass, {0.f, 1.f, 0.f}, {1.f, 0.f, 0.f}},
    {"speed", "Speed (blue → yellow)", "Blue for bodies at rest, yellow for the fastest (99th percentile of the speeds)",
     ColourSource::Speed, {0.15f, 0.35f, 1.f}, {1.f, 0.9f, 0.1f}},
    {"group", "Group", "One colour per group: dark matter, stars, gas (files) or generic (the default cube)",
     ColourSource::Group, {0.f, 0.f, 0.f}, {0.f, 0.f, 0.f}},
    {"level", "Time-step level (blue → red)",
     "Block time steps: blue for bodies on the largest step (level 0), red for the deepest level in use; "
     "every body is on level 0 with fixed steps",
     ColourSource::Level, {0.2f, 0.4f, 1.f}, {1.f, 0.2f, 0.15f}},
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

bool hasGroups(const World& world)
{
    const auto& groups = world.groups();
    return std::any_of(groups.begin(), groups.end(), [](Group g) { return g != Group::Generic; });
}

const ColourMode& defaultColourMode(const World& world)
{
    return *findColourMode(hasGroups(world) ? "group" : "mass");
}

float bodyScalars(ColourSource source, const World& world, std::vector<float>& out, std::uint8_t* groupsPresent,
                  std::span<const std::uint8_t> levels)
{
    out.clear();
    if (source == ColourSource::Mass)
        return 0.f;
    const std::size_t n = world.size();
    out.resize(n);
    if (source == ColourSource::Level) {
        const bool known = levels.size() == n;
        int deepest = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const int k = known ? levels[i] : 0;
            out[i] = float(k);
            deepest = std::max(deepest, k);
        }
        return float(std::max(deepest, 1));
    }
    if (source == ColourSource::Group) {
        unsigned mask = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const auto g = static_cast<unsigned>(world.groups()[i]);
            out[i] = float(g);
            mask |= 1u << g;
        }
        if (groupsPresent)
            *groupsPresent = static_cast<std::uint8_t>(mask);
        return 3.f;
    }
    for (std::size_t i = 0; i < n; ++i) {
        const Float4& v = world.velocities()[i];
        out[i] = std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
    }
    std::vector<float> sorted = out;
    const float p99 = nearestRankQuantile(sorted, 0.99);
    return p99 > 0.f ? p99 : 1.f;
}

} // namespace nbody::gl
