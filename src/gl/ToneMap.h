#pragma once
/// \file ToneMap.h
/// The renderer's tone curve for coloured light in C++ (Renderer.h has it for grey light:
/// toneMapped(), exposedLight()), for tests and tools that predict what a frame shows.

#include "ColourModes.h"

namespace nbody::gl {

/// What resources/shaders/tonemap.frag displays for accumulated light `light` (per channel) at
/// `exposure` over `background` (three channels, 0 … 1): each channel's d = (x / (1 + x))^(1/2.2)
/// with x = light × exposure, over the background by the brightest d: d + background × (1 − max d).
ColourRgb displayedColour(ColourRgb light, float exposure, const float background[3]);

} // namespace nbody::gl
