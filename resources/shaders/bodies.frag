#version 330 core
// A soft sprite with a Gaussian profile: intensity exp(-r²/2σ²) with σ = 1/3 of the sprite's
// radius (4.5 = 1 / (2 · (1/3)²); the rim is at 3σ, intensity 1.1 %), so the full width at half
// maximum is 2.355σ = 0.785 of the sprite's radius, 0.3925 of its diameter (bodies.vert sizes
// the sprite from the width at half maximum it is asked for).
// Additive mode: colour × intensity is added into the floating-point accumulation buffer (blend
// ONE, ONE), so overlapping bodies sum; otherwise the intensity is the alpha of an "over" blend.
// A subsample (RenderStyle::sampleStride s): each drawn body carries the light of s (u_weight).
in vec3 v_colour;

uniform bool u_additive;
uniform float u_weight; // bodies a sprite stands for (1: every body is drawn)

out vec4 fragColour;

void main()
{
    vec2 p = gl_PointCoord * 2.0 - 1.0; // -1..1 across the sprite
    float r2 = dot(p, p);
    if (r2 > 1.0)
        discard;
    float intensity = exp(-4.5 * r2) * u_weight;
    fragColour = u_additive ? vec4(v_colour * intensity, intensity) : vec4(v_colour, min(intensity, 1.0));
}
