#version 330 core
// Bodies as point sprites (src/gl/Renderer.cpp). Attribute 0 is a Float4 read straight from the
// position buffer: xyz = position (length units), w = mass (mass units).
layout(location = 0) in vec4 a_positionMass;

uniform mat4 u_viewProjection;
uniform float u_massMin;   // mass drawn green
uniform float u_massMax;   // mass drawn red
uniform float u_pointSize; // sprite diameter in framebuffer pixels (pointSize × devicePixelRatio)

out vec3 v_colour;

void main()
{
    gl_Position = u_viewProjection * vec4(a_positionMass.xyz, 1.0);
    float range = u_massMax - u_massMin;
    float t = range > 0.0 ? clamp((a_positionMass.w - u_massMin) / range, 0.0, 1.0) : 0.0;
    // Colour by mass: green (lightest) to red (heaviest).
    v_colour = mix(vec3(0.0, 1.0, 0.0), vec3(1.0, 0.0, 0.0), t);
    // Heavier bodies are drawn up to half as large again.
    gl_PointSize = max(u_pointSize * (1.0 + 0.5 * t), 1.0);
}
