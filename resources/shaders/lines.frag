#version 330 core
// Overlay lines (the vertex colour, slightly translucent so bodies behind stay visible) and the
// fading pass of trails (the background colour at a small alpha over the previous frame).
in vec3 v_colour;

uniform float u_alpha;

out vec4 fragColour;

void main()
{
    fragColour = vec4(v_colour, u_alpha);
}
