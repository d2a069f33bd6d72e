#pragma once
/// \file ColourModes.h
/// The colour modes of the renderer, as a table (like the kernel registry): the View dock's
/// list, the legend and the shader's uniforms all come from these rows.

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace nbody { class World; }

namespace nbody::gl {

/// What a body's colour is computed from.
enum class ColourSource : int {
    Mass = 0,  ///< the mass (w of the position buffer), over the system's mass range
    Speed = 1, ///< |v| from the per-body scalar buffer, 0 … the 99th percentile of the speeds
    Group = 2, ///< the Group component (dark matter, stars, gas, generic) from the scalar buffer
    Level = 3, ///< block time steps: each body's level k (step dt/2^k) from the scalar buffer
};

struct ColourRgb {
    float r, g, b;
};

struct ColourMode {
    std::string_view id;          ///< "mass", "speed", "group"
    std::string_view name;        ///< for menus
    std::string_view description; ///< for tooltips
    ColourSource source;
    ColourRgb low, high;                ///< gradient ends (Mass, Speed)
};

/// The rows: mass (green → red, the look of the predecessor's renderer), speed (blue → yellow),
/// group, time-step level (blue → red).
std::span<const ColourMode> colourModes();
/// The row with `id`, or nullptr.
const ColourMode* findColourMode(std::string_view id);

/// Colours of the Group component, indexed by its value (Generic, DarkMatter, Star, Gas).
inline constexpr std::array<ColourRgb, 4> kGroupColours = {{
    {0.85f, 0.85f, 0.85f}, // generic: light grey
    {0.85f, 0.25f, 0.20f}, // dark matter: red
    {0.35f, 0.75f, 1.00f}, // stars: blue-white
    {0.30f, 0.90f, 0.40f}, // gas: green
}};
inline constexpr std::array<std::string_view, 4> kGroupNames = {"generic", "dark matter", "stars", "gas"};

/// Whether any body of `world` has a group other than Generic (a galaxy's dark matter and stars).
bool hasGroups(const World& world);
/// The colour mode a view starts with for `world`: group where the system has groups (so a
/// galaxy's stars show apart from its halo), else mass.
const ColourMode& defaultColourMode(const World& world);

/// The per-body values a colour source reads from the scalar buffer, from `world`'s columns:
/// Speed |v| (length / time), Group the Group component's value (0…3). `out` gets N floats.
/// Returns the top of the colour scale: for Speed the 99th percentile of the speeds (nearest
/// rank; 1 when it is 0, a system at rest), for Group 3. Mass reads no scalars: `out` is
/// cleared and 0 returned. For Group, `groupsPresent` (when given) gets the groups the system
/// holds from the same pass: bit g (1 << g) set when some body's Group has the value g (0 for an
/// empty system), which the legend lists.
///
/// Level reads `levels` (N entries: Simulation::blockLevels().level; empty or another size, as
/// with fixed steps: every body on level 0) and returns the deepest level present (1 when it is 0).
float bodyScalars(ColourSource source, const World& world, std::vector<float>& out,
                  std::uint8_t* groupsPresent = nullptr, std::span<const std::uint8_t> levels = {});

} // namespace nbody::gl
