#version 330 core
// Bodies as point sprites (src/gl/Renderer.cpp). Attribute 0 is a Float4 read straight from the
// position buffer: xyz = position (length units), w = mass (mass units). Attribute 1 is a
// per-body scalar (speed, the group as 0, 1, 2, 3, or the time-step level) for the colour modes that need one
// (src/gl/ColourModes.h); when it is not bound it reads 0.
layout(location = 0) in vec4 a_positionMass;
layout(location = 1) in float a_scalar;

uniform mat4 u_viewProjection;
uniform int u_source;      // ColourSource: 0 mass, 1 speed, 2 group, 3 time-step level (a gradient, as speed)
uniform float u_valueMin;  // value drawn in u_low (mass or speed)
uniform float u_valueMax;  // value drawn in u_high
uniform vec3 u_low;
uniform vec3 u_high;
uniform vec3 u_groupColours[4];
uniform float u_pointSize;    // full width at half maximum of a sprite, framebuffer pixels
uniform float u_minPointSize; // the smallest width at half maximum, framebuffer pixels
uniform float u_refDistance;  // > 0: sizes scale as u_refDistance / depth (the camera's distance)

out vec3 v_colour;

void main()
{
    gl_Position = u_viewProjection * vec4(a_positionMass.xyz, 1.0);
    float value = u_source == 0 ? a_positionMass.w : a_scalar;
    float range = u_valueMax - u_valueMin;
    float t = range > 0.0 ? clamp((value - u_valueMin) / range, 0.0, 1.0) : 0.0;
    if (u_source == 2)
        v_colour = u_groupColours[clamp(int(a_scalar + 0.5), 0, 3)];
    else
        v_colour = mix(u_low, u_high, t);
    // Heavier bodies are drawn up to half as large again (in mass mode).
    float massRange = u_source == 0 ? range : 0.0;
    float tm = massRange > 0.0 ? t : 0.0;
    float width = u_pointSize * (1.0 + 0.5 * tm);
    if (u_refDistance > 0.0)
        width *= u_refDistance / max(gl_Position.w, 1e-6 * u_refDistance);
    width = clamp(width, u_minPointSize, 256.0);
    gl_PointSize = max(width / 0.3925, 1.0); // the sprite's diameter from its width at half maximum
}
